/// The debug-build check that an endpoint's authentication method is one shared instance.
///
/// A stateful method (a class or actor, such as ``JWTAuth``) declared as a computed
/// `static var auth: JWTAuth { JWTAuth(...) }` hands each request a fresh instance: its tokens
/// are lost and refreshes cannot coalesce. The pipeline reads `T.auth` twice and asserts it got the
/// same object. Value types (``HeaderKeyAuth``, ``BasicAuth``…) hold no state and are not checked.
/// `assert` is compiled out of release builds, so this costs nothing there.
enum SharedInstanceCheck {
    /// Whether two reads of `T.auth` give the same instance (always `true` for value types).
    static func isShared<T: Endpoint>(_: T.Type) -> Bool {
        guard T.Auth.self is AnyObject.Type else { return true }
        return (T.auth as AnyObject) === (T.auth as AnyObject)
    }

    /// Asserts, in debug builds, that `T.auth` is one shared instance.
    static func assertShared<T: Endpoint>(_: T.Type) {
        assert(
            isShared(T.self),
            "\(T.self).auth returns a new \(T.Auth.self) each time it is read, so its tokens and refreshes "
                + "are not shared between requests. Declare it as `static let auth = …`."
        )
    }
}
