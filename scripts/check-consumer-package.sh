#!/usr/bin/env bash
# Checks that the README's installation compiles: takes the complete Package.swift the README shows
# (the ```swift block that starts with `// swift-tools-version`), replaces its
# `.package(url: …)` with this checkout (`.package(name: "Endpoints", path: …)`), adds an app target
# that imports Endpoints and sends an endpoint, and a test target that imports EndpointsMocking
# and mocks it, then builds the app and its tests and runs the test.
#
# The throwaway package lives in a temporary directory; the build goes to .build/dependents (or
# $CONSUMER_SCRATCH), shared with the compile-failure checks, which build Endpoints there as a
# dependency the same way, so Endpoints is built once for the three and a second run only
# rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
scratch="${CONSUMER_SCRATCH:-$root/.build/dependents}"
package=$(mktemp -d "${TMPDIR:-/tmp}/endpoints-consumer.XXXXXX")
trap 'rm -rf "$package"' EXIT

python3 - "$root/README.md" "$package/Package.swift" "$root" <<'EOF'
import re, sys
readme, manifest_path, root = sys.argv[1:]
blocks = re.findall(r"^```swift\n(.*?)^```", open(readme).read(), re.S | re.M)
manifests = [b for b in blocks if b.startswith("// swift-tools-version")]
if len(manifests) != 1:
    sys.exit(f"README.md: expected one ```swift block starting with // swift-tools-version, found {len(manifests)}")
manifest = manifests[0]
dependency = re.compile(r'\.package\(url:\s*"[^"]*/Endpoints(\.git)?",[^)]*\)')
if len(dependency.findall(manifest)) != 1:
    sys.exit("README.md: the manifest must have exactly one .package(url: \".../Endpoints.git\", ...)")
manifest = dependency.sub(f'.package(name: "Endpoints", path: "{root}")', manifest)
open(manifest_path, "w").write(manifest)
# The target names as the manifest declares them: the app first, then its tests.
app = re.search(r'\.(?:executableTarget|target)\(\s*name:\s*"([^"]+)"', manifest)
tests = re.search(r'\.testTarget\(\s*name:\s*"([^"]+)"', manifest)
if not app or not tests:
    sys.exit("README.md: the manifest needs an app target and a test target")
open(manifest_path + ".targets", "w").write(f"{app.group(1)} {tests.group(1)}\n")
EOF
read -r app tests <"$package/Package.swift.targets"
rm "$package/Package.swift.targets"

mkdir -p "$package/Sources/$app" "$package/Tests/$tests"
cat >"$package/Sources/$app/main.swift" <<'EOF'
import Endpoints

struct ExampleServer: ServerDefinition {
    var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
    static var defaultEnvironment: Environments { .production }
}

struct Greeting: Endpoint {
    typealias Server = ExampleServer
    static let definition: Definition<Greeting> = Definition(method: .get, path: "greeting")
    struct Response: Decodable, Sendable { let text: String }
}

func greet(using session: URLSession = .shared) async throws(Greeting.TaskError) -> String {
    try await session.response(with: Greeting()).text
}

if CommandLine.arguments.contains("--greet") {
    print(try await greet())
}
EOF
cat >"$package/Tests/$tests/${tests}.swift" <<EOF
import Endpoints
import EndpointsMocking
import Testing

@testable import $app

@Test func greetingIsMocked() async throws {
    let text = try await withMock(Greeting.self, action: .return(.init(text: "hello"))) {
        try await greet()
    }
    #expect(text == "hello")
}
EOF

echo "consumer package: $package (the README's manifest, Endpoints at $root); build: $scratch"
swift build --build-tests --package-path "$package" --scratch-path "$scratch"
# And the consumer's test passes: the mock answers through the library's pipeline.
swift test --skip-build --package-path "$package" --scratch-path "$scratch" 2>&1 | tail -n 3
test "${PIPESTATUS[0]}" -eq 0
