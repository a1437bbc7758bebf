// swift-tools-version: 6.0
// A package that must NOT compile: scripts/check-migration-compile-errors.sh builds it and expects,
// for each Endpoints 0.4 spelling in Sources/Migration04, the diagnostic that names what replaces it.
import PackageDescription

let package = Package(
    name: "CompileFailure04",
    platforms: [.macOS(.v12)],
    dependencies: [.package(name: "Endpoints", path: "../..")],
    targets: [
        .target(
            name: "Migration04",
            dependencies: [.product(name: "Endpoints", package: "Endpoints")]
        )
    ],
    swiftLanguageModes: [.v6]
)
