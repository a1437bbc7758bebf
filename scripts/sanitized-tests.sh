#!/usr/bin/env bash
# scripts/sanitized-tests.sh thread|address
#
# Runs the concurrency-heavy test targets under a sanitizer: the stress suite (thousands of requests
# at 64 in flight through each transport, cancellations racing completions, credential refreshes,
# retries, dropped connections; on Linux, 320 WebSockets opened and ended 32 at a time beside
# requests), the mocking suites and the test server's own. They are built in a
# throwaway package (.build/sanitized-<kind>/, whose sources are links to this checkout's) that
# holds only the library, the test server, the mocking modules and those test targets, so the
# sanitizer build skips the 23,000 lines of EndpointsTests: on 2 cores that build took 390-420 s
# of CI's 25 minutes for each sanitizer; this one takes about a fifth. The whole suite under a
# sanitizer is still one command: `swift test --sanitize=thread`.
#
# ENDPOINTS_STRESS_REQUESTS and the other variables of the stress suite pass through. With
# `address`, LeakSanitizer runs at exit with .ci/lsan-suppressions.txt (leaks inside the toolchain's
# libraries only). Fails when the sanitizer reports anything, even if every test passed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kind="${1:-}"
case "$kind" in
    thread | address) ;;
    *) echo "usage: $0 thread|address" >&2; exit 2 ;;
esac

package="$root/.build/sanitized-$kind"
mkdir -p "$package/Sources" "$package/Tests"
for source in CEndpointsCurl Endpoints EndpointsMocking EndpointsMockingTesting EndpointsTestServer; do
    ln -sfn "$root/Sources/$source" "$package/Sources/$source"
done
for tests in EndpointsStressTests EndpointsMockingTests EndpointsTestServerTests; do
    ln -sfn "$root/Tests/$tests" "$package/Tests/$tests"
done
# The root manifest's targets, less the executables and EndpointsTests.
cat > "$package/Package.swift" <<'MANIFEST'
// swift-tools-version: 6.0
import PackageDescription

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]
let package = Package(
    name: "EndpointsSanitized",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    targets: [
        .target(name: "CEndpointsCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(
            name: "Endpoints",
            dependencies: [.target(name: "CEndpointsCurl", condition: .when(platforms: [.linux]))],
            swiftSettings: upcoming),
        .target(name: "EndpointsMocking", dependencies: ["Endpoints"], swiftSettings: upcoming),
        .target(name: "EndpointsMockingTesting", dependencies: ["EndpointsMocking"], swiftSettings: upcoming),
        .target(name: "EndpointsTestServer", dependencies: ["Endpoints"], swiftSettings: upcoming),
        .testTarget(name: "EndpointsStressTests", dependencies: ["Endpoints", "EndpointsTestServer"], swiftSettings: upcoming),
        .testTarget(name: "EndpointsTestServerTests", dependencies: ["EndpointsTestServer"], swiftSettings: upcoming),
        .testTarget(
            name: "EndpointsMockingTests",
            dependencies: ["Endpoints", "EndpointsMocking", "EndpointsMockingTesting", "EndpointsTestServer"],
            swiftSettings: upcoming),
    ],
    swiftLanguageModes: [.v6]
)
MANIFEST

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
if [ "$kind" = address ]; then
    export LSAN_OPTIONS="suppressions=$root/.ci/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fi
# Everything runs several times slower under a sanitizer; tests that bound promptness scale them.
export ENDPOINTS_TEST_TIME_SCALE="${ENDPOINTS_TEST_TIME_SCALE:-4}"
# The stress suite runs alone after the rest, as in scripts/test.sh: its load starves other tests.
swift test --package-path "$package" --sanitize="$kind" --skip EndpointsStressTests 2>&1 | tee "$log" || status=$?
swift test --package-path "$package" --sanitize="$kind" --skip-build --filter EndpointsStressTests 2>&1 \
    | tee -a "$log" || status=$?
if grep -q "WARNING: ThreadSanitizer\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer" "$log"; then
    echo "sanitized-tests: the $kind sanitizer reported errors (above)"
    exit 1
fi
exit "$status"
