import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain requests for checking the server's HTTP behaviour itself (status codes and headers), with caching off
/// so URLSession never answers a 304 or a range from its own cache.
struct RawHTTP {
    struct Answer {
        let status: Int
        let headers: HTTPURLResponse
        let body: Data

        func header(_ name: String) -> String? { headers.value(forHTTPHeaderField: name) }
    }

    let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    func get(_ url: URL, headers: [String: String] = [:], method: String = "GET") async throws -> Answer {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw FixtureError.notHTTP }
        return Answer(status: http.statusCode, headers: http, body: data)
    }
}
