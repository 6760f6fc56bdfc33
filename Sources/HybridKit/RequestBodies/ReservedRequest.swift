import Foundation

/// The requests the hooks make to the reserved paths of the page's own origin, parsed from the URL.
enum ReservedRequest: Equatable {
    /// `POST /__hybrid__/body?size=N`: first chunk of a new body.
    case beginBody(size: Int)
    /// `POST /__hybrid__/body/<id>?offset=K`: the next chunk.
    case appendBody(id: String, offset: Int)
    /// `DELETE /__hybrid__/body/<id>`: the page gave up (abort).
    case discardBody(id: String)
    /// `POST /__hybrid__/proxy`: a request for native networking, described in the `X-Hybrid-Proxy` header.
    case proxy
    case invalid(String)

    static let root = "/__hybrid__/"
    /// Tags a request whose body waits in the store (header for XHR and fetch, query item for beacons and forms).
    static let bodyHeader = "X-Hybrid-Body"
    static let bodyQueryItem = "__hybrid_body"
    static let bodyQueryItemPrefix = bodyQueryItem + "="

    /// With a body tag: the page's fetch `redirect` mode (`manual`, `error`) when it is not `follow`.
    static let redirectHeader = "X-Hybrid-Redirect"
    static let proxyHeader = "X-Hybrid-Proxy"
    static let contentTypeHeader = "X-Hybrid-Content-Type"
    /// The page's body key: a body sent to the scheme is read only with it (see `SchemeHandler.mayReadBody`).
    static let bodyKeyHeader = "X-Hybrid-Body-Key"

    /// The body id a `url` names in its query, read as the hooks write it and as `removingBodyTag` takes it out: the
    /// item as text.
    static func bodyTag(in url: URL) -> String? {
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        let item = query.split(separator: "&").first { $0.hasPrefix(bodyQueryItemPrefix) }
        return item.map { String($0.dropFirst(bodyQueryItemPrefix.count)) }
    }

    /// `url` without the body tag's query items, the rest of its query as text: the other items go on exactly as
    /// the page wrote them (decoded and encoded again, a `%2B` would reach the server as `+`, a space once read).
    static func removingBodyTag(from url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let query = components.percentEncodedQuery
        else { return url }
        let items = query.split(separator: "&", omittingEmptySubsequences: false)
        let kept = items.filter { $0 != bodyQueryItem && !$0.hasPrefix(bodyQueryItemPrefix) }
        guard kept.count != items.count else { return url }
        components.percentEncodedQuery = kept.isEmpty ? nil : kept.joined(separator: "&")
        return components.url ?? url
    }

    /// nil when `url` is not under the reserved root.
    init?(url: URL, method: String) {
        let path = url.path
        guard path.hasPrefix(Self.root) else { return nil }
        let parts = path.dropFirst(Self.root.count).split(separator: "/", omittingEmptySubsequences: false)
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func number(_ name: String) -> Int? { query.first { $0.name == name }?.value.flatMap { Int($0) } }
        switch (method.uppercased(), parts.first.map(String.init), parts.count) {
        case ("POST", "body", 1):
            guard let size = number("size"), size >= 0 else {
                self = .invalid("a new body needs its size as ?size=<bytes>")
                return
            }
            self = .beginBody(size: size)
        case ("POST", "body", 2):
            guard let offset = number("offset"), offset >= 0 else {
                self = .invalid("a body chunk needs its position as ?offset=<bytes>")
                return
            }
            self = .appendBody(id: String(parts[1]), offset: offset)
        case ("DELETE", "body", 2):
            self = .discardBody(id: String(parts[1]))
        case ("POST", "proxy", 1):
            self = .proxy
        default:
            self = .invalid("\(method) \(path) is not a reserved request")
        }
    }
}
