#!/usr/bin/env bash
# Type-checks the library's Combine code on Linux, where Combine does not exist: builds the
# Endpoints sources in a throwaway package next to a stand-in `Combine` module that declares only
# the API the library uses (scripts/combine-stand-in/Combine.swift), with no behaviour. So
# `#if canImport(Combine)` is true and a signature, a generic constraint or a typed throw that would
# not compile on Apple platforms fails here. It checks types, not behaviour: the publishers' tests
# run on Apple platforms only.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="${SCRATCH:-$root/.build/combine-check}"
rm -rf "$scratch/Sources"
mkdir -p "$scratch/Sources/Combine"
cp "$root/scripts/combine-stand-in/Combine.swift" "$scratch/Sources/Combine/Combine.swift"
ln -s "$root/Sources/Endpoints" "$scratch/Sources/Endpoints"
# The libcurl shim the Linux transport imports (its code builds here too, Linux being Linux).
ln -s "$root/Sources/CEndpointsCurl" "$scratch/Sources/CEndpointsCurl"
cat > "$scratch/Package.swift" <<'MANIFEST'
// swift-tools-version: 6.0
import PackageDescription

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]
let package = Package(
    name: "CombineCheck",
    targets: [
        .target(name: "Combine"),
        .target(name: "CEndpointsCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(
            name: "Endpoints",
            dependencies: ["Combine", .target(name: "CEndpointsCurl", condition: .when(platforms: [.linux]))],
            swiftSettings: upcoming),
    ],
    swiftLanguageModes: [.v6]
)
MANIFEST
log=$(mktemp)
if ! swift build --package-path "$scratch" >"$log" 2>&1; then
    grep -E "error:" "$log" | head -40
    echo "the library's Combine code does not compile against the stand-in"
    exit 1
fi
# Guard against a check that cannot fail: the publishers' file must have been compiled.
if [ -z "$(find "$scratch/.build" -name 'EndpointSending+Combine.swift.o' -print -quit)" ]; then
    echo "the Combine sources were not compiled"
    exit 1
fi
echo "Combine code: type-checks against the stand-in"
