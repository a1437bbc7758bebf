import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET archive`: 256 KiB, whose first download loses its connection midway.
struct Archive: Endpoint {
    typealias Server = DemoServer
    typealias Response = Data
    typealias ErrorResponse = ApiError
    static var auth: NoAuth { NoAuth() }
    static let definition: Definition<Archive> = Definition(method: .get, path: "archive")
}

/// A resumable download: the connection drops, what arrived is kept beside the file, and the next
/// call asks only for the rest.
enum DownloadSection {
    static func run(_ tour: Tour) async throws {
        let say = tour.transcript
        say.section("A download resumed after a dropped connection")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "endpoints-demo-\(UUID().uuidString).bin")
        let kept = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).partial")
        defer {
            // A tour that stops midway leaves nothing behind either.
            for leftover in [file, kept, kept.appendingPathExtension("json")] {
                try? FileManager.default.removeItem(at: leftover)
            }
        }
        let client = EndpointClient()
        for attempt in 1...2 {
            do throws(Archive.TaskError) {
                let response = try await client.download(
                    Archive(), to: file, environment: tour.production, middleware: tour.middleware, resumable: true)
                let size = (try? Data(contentsOf: file))?.count ?? 0
                let range = response.value(forHTTPHeaderField: "Content-Range").map { ", Content-Range: \($0)" } ?? ""
                say.line("download #\(attempt) → \(response.statusCode)\(range); the file has \(size) bytes")
                break
            } catch {
                let size = (try? Data(contentsOf: kept))?.count ?? 0
                guard case .urlLoadError(let lost) = error else { throw error }
                say.line(
                    "download #\(attempt) → .urlLoadError, URLError \(lost.code.rawValue): the connection dropped; "
                        + "\(size) bytes kept beside the file")
            }
        }
    }
}
