// swift-tools-version: 6.0
// A package that must NOT compile: scripts/check-compile-failure.sh builds it and expects the
// diagnostic that endpointTask(with:) is only for unauthenticated endpoints.
import PackageDescription

let package = Package(
    name: "CompileFailure",
    platforms: [.macOS(.v12)],
    dependencies: [.package(name: "Endpoints", path: "../..")],
    targets: [
        .target(
            name: "AuthenticatedEndpointTask",
            dependencies: [.product(name: "Endpoints", package: "Endpoints")]
        )
    ],
    swiftLanguageModes: [.v6]
)
