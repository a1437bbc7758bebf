import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The app-side types the "Mocking" article's snippets use.

struct LoginEndpoint: Endpoint {
    typealias Server = ApiServer
    static var auth: NoAuth { NoAuth() }
    static let definition: Definition<LoginEndpoint> = Definition(method: .post, path: "login")
    struct Body: Encodable {
        let user: String
        let password: String
    }
    struct Response: Decodable {
        let accessToken: String
        let refreshToken: String
    }
    let body: Body
}

struct SettingsEndpoint: Endpoint {
    typealias Server = ApiServer
    static let definition: Definition<SettingsEndpoint> = Definition(method: .get, path: "settings")
    struct Response: Decodable { let theme: String }
}

struct FeedEndpoint: Endpoint {
    typealias Server = ApiServer
    typealias Response = [String]
    static let definition: Definition<FeedEndpoint> = Definition(method: .get, path: "feed")
}

/// A view model that signs in, loads the profile and settings, and reacts to auth failures.
@MainActor final class AccountModel {
    private(set) var name: String?
    private(set) var settings: SettingsEndpoint.Response?
    private(set) var needsSignIn = false

    func signIn(user: String, password: String) async throws {
        _ = try await URLSession.shared.response(with: LoginEndpoint(body: .init(user: user, password: password)))
        name = try await URLSession.shared.response(with: ProfileEndpoint()).name
        settings = try? await URLSession.shared.response(with: SettingsEndpoint())
    }

    func load() async {
        do throws(ProfileEndpoint.TaskError) {
            name = try await URLSession.shared.response(with: ProfileEndpoint()).name
        } catch {
            if case .authenticationError = error { needsSignIn = true }
        }
    }

    func reload() async throws {
        _ = try await URLSession.shared.response(with: RefreshEndpoint(token: "r1"))
        name = try await URLSession.shared.response(with: ProfileEndpoint()).name
    }
}
