import Foundation

/// What the hook says about a full-proxy request, percent-encoded JSON in the `X-Hybrid-Proxy` header (the body,
/// when there is one, is the proxy request's own body or a stored body named by `bodyID`).
struct ProxyDescriptor: Decodable {
    var url: String
    var method: String
    var headers: [[String]]
    var bodyID: String?
    var credentials: String?
    var redirect: String?
    var firstParty: String?
    /// The body rides on the proxy request and its Content-Type is the one the engine gave that request.
    var inlineType: Bool?

    static func decode(_ header: String) -> ProxyDescriptor? {
        guard let json = header.removingPercentEncoding else { return nil }
        return try? JSONDecoder().decode(ProxyDescriptor.self, from: Data(json.utf8))
    }

    var headerPairs: [(name: String, value: String)] {
        headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
    }
}
