// swift-tools-version: 6.0
import PackageDescription

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Endpoints",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "Endpoints", targets: ["Endpoints"]),
        .library(name: "EndpointsMocking", targets: ["EndpointsMocking"]),
        .library(name: "EndpointsMockingTesting", targets: ["EndpointsMockingTesting"]),
        .library(name: "EndpointsTestServer", targets: ["EndpointsTestServer"]),
        .executable(name: "endpoints-demo", targets: ["EndpointsDemo"]),
        .executable(name: "endpoints-bench", targets: ["EndpointsBench"]),
        .executable(name: "endpoints-cache-proxy", targets: ["EndpointsCacheProxy"]),
    ],
    targets: [
        // libcurl's ABI, loaded with dlopen: the Linux transport needs no curl headers (see its header).
        .target(name: "CEndpointsCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(
            name: "Endpoints",
            dependencies: [.target(name: "CEndpointsCurl", condition: .when(platforms: [.linux]))],
            swiftSettings: upcoming
        ),
        .target(name: "EndpointsMocking", dependencies: ["Endpoints"], swiftSettings: upcoming),
        // The Swift Testing trait, apart so that EndpointsMocking never links Testing.
        .target(name: "EndpointsMockingTesting", dependencies: ["EndpointsMocking"], swiftSettings: upcoming),
        .target(name: "EndpointsTestServer", dependencies: ["Endpoints"], swiftSettings: upcoming),
        .executableTarget(
            name: "EndpointsDemo",
            dependencies: ["Endpoints", "EndpointsMocking", "EndpointsTestServer"],
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "EndpointsBench",
            // CEndpointsCurl for the bare libcurl loop, the floor the libcurl transport is measured against.
            dependencies: [
                "Endpoints", "EndpointsTestServer",
                .target(name: "CEndpointsCurl", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: upcoming
        ),
        // The reverse proxy that runs http-tests/cache-tests against HTTPCache (scripts/cache-tests.sh).
        .executableTarget(
            name: "EndpointsCacheProxy",
            dependencies: ["Endpoints", "EndpointsTestServer"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "EndpointsTests",
            dependencies: ["Endpoints", "EndpointsMocking", "EndpointsTestServer"],
            swiftSettings: upcoming
        ),
        // Load and faults against the loopback server; ENDPOINTS_STRESS_REQUESTS sets the size.
        .testTarget(
            name: "EndpointsStressTests",
            dependencies: ["Endpoints", "EndpointsTestServer"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "EndpointsDemoTests",
            dependencies: ["EndpointsDemo", "EndpointsTestServer"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "EndpointsTestServerTests",
            dependencies: ["EndpointsTestServer"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "EndpointsMockingTests",
            dependencies: ["Endpoints", "EndpointsMocking", "EndpointsMockingTesting", "EndpointsTestServer"],
            swiftSettings: upcoming
        ),
    ],
    swiftLanguageModes: [.v6]
)
