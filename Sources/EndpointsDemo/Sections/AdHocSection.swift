import Endpoints

/// A request written at the call site, without an `Endpoint` type: the same encoding, validation,
/// middleware and typed errors.
enum AdHocSection {
    struct Status: Decodable, Sendable { let status: String }

    static func run(_ tour: Tour, client: DemoClient) async throws {
        let say = tour.transcript
        say.section("An ad-hoc request")
        // A base URL, headers and the signed-in client's JWTAuth, declared once for many requests.
        let base = RequestBase(
            url: tour.production, headers: [.accept: "application/json"], auth: client.auth,
            middleware: tour.middleware)
        let status = try await URLSession.shared.response(for: Request<Status>.get("version", on: base).map(\.status))
        say.line("GET version (Request<Status>.get(…).map(\\.status)) → \"\(status)\"")
        do {
            _ = try await URLSession.shared.response(
                for: Request<Status>.get("users/\(42)", on: base).errorBody(ApiError.self))
        } catch {
            if case .errorResponse(let http, let body) = error {
                say.line(
                    "GET users/42 with .errorBody(ApiError.self) → .errorResponse, status \(http.statusCode), body \(body)"
                )
            } else {
                say.line("GET users/42 → \(error)")
            }
        }
    }
}
