// endpoints-demo: `swift run endpoints-demo [--base-url URL] [--log-level off|basic|headers|bodies]`.
// A tour of the library against an embedded loopback service; see Tour.swift.
import Foundation

do {
    let options = try DemoOptions(arguments: Array(CommandLine.arguments.dropFirst()))
    try await Demo.run(options: options) { print($0) }
} catch let invalid as DemoOptions.Invalid {
    print(invalid)
    exit(2)
}
