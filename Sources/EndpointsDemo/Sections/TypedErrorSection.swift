import Endpoints

/// A typed error: the server's error body decoded as the endpoint's `ErrorResponse`, with the
/// status, matched without a cast — in a function, and in a closure with `do throws(…)`.
enum TypedErrorSection {
    static func run(_ tour: Tour, client: DemoClient) async throws {
        let say = tour.transcript
        say.section("A typed error")
        do {
            let user = try await client.send(GetUser(pathComponents: .init(id: 99)))
            say.line("GET users/99 → unexpectedly \(user)")
        } catch {
            // `error` is GetUser.TaskError, EndpointTaskError<ApiError>: no cast needed.
            switch error {
            case .errorResponse(let http, let body):
                say.line("GET users/99 → .errorResponse, status \(http.statusCode), body \(body)")
            default:
                say.line("GET users/99 → \(error)")
            }
        }

        // In a closure the compiler does not infer the error type: name it with `do throws(…)`.
        let wrongPassword = Task {
            do throws(Login.TaskError) {
                _ = try await DemoClient.signIn(
                    at: tour.production, password: "guess", middleware: tour.middleware, refreshes: tour.refreshes)
                return "unexpectedly signed in"
            } catch {
                if case .errorResponse(let http, let body) = error {
                    return ".errorResponse, status \(http.statusCode), body \(body)"
                }
                return "\(error)"
            }
        }
        say.line(
            "POST login with a wrong password (in a Task, do throws(Login.TaskError)) → \(await wrongPassword.value)")
    }
}
