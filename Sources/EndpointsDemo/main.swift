// endpoints-demo: `swift run endpoints-demo` — see Demo.swift.
try await Demo.run { print($0) }
