// swift-tools-version: 6.0
// The fuzz targets, apart from the main package so that a plain `swift build` there never needs
// libFuzzer. scripts/fuzz.sh builds them with `-sanitize=fuzzer,address -parse-as-library` for
// every module (so the Endpoints module is instrumented for coverage too) and `-enable-testing`,
// which lets the targets reach the internal encoders with `@testable import Endpoints`.
import PackageDescription

/// One executable per fuzz target; scripts/fuzz.sh lists them in the same order.
let targets = [
    "FuzzPathSegment", "FuzzQueryForm", "FuzzMultipart", "FuzzHeaders", "FuzzRetryAfter", "FuzzCURL",
    "FuzzSSE", "FuzzJSONLines", "FuzzResponse", "FuzzWebSocket",
]

let package = Package(
    name: "EndpointsFuzz",
    platforms: [.macOS(.v12)],
    dependencies: [.package(name: "Endpoints", path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "Endpoints", package: "Endpoints")]),
        .target(name: "FuzzDriver"),
    ]
        + targets.map { name in
            .executableTarget(
                name: name,
                dependencies: ["FuzzSupport", "FuzzDriver", .product(name: "Endpoints", package: "Endpoints")]
            )
        },
    swiftLanguageModes: [.v6]
)
