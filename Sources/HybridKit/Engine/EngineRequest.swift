import Foundation

/// An HTTP-like request as an engine sees it: for loads, navigation decisions and scheme handlers.
public struct EngineRequest: Sendable, Equatable {
    public var url: URL
    public var method: String
    /// Header fields in the order the engine gave them. Names compare case-insensitively.
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// The body as it arrives, for a body native code streams while the page is still uploading it (the request
    /// hooks' body by id): `body` stays nil until every byte is in. Only handlers that say they read it get a
    /// request with it set and no `body` (``SchemeHandler/readsBodySource``). Not part of `==`.
    public var bodySource: (any RequestBodySource)?
    /// The engine did not read the request's body because the handler said not to
    /// (``SchemeHandler/mayReadBody(of:)``): `body` is nil whatever the page sent.
    public var bodyWithheld = false

    public init(url: URL, method: String = "GET", headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public static func == (lhs: EngineRequest, rhs: EngineRequest) -> Bool {
        lhs.url == rhs.url && lhs.method == rhs.method && lhs.body == rhs.body
            && lhs.headers.map { "\($0.name)\u{0}\($0.value)" } == rhs.headers.map { "\($0.name)\u{0}\($0.value)" }
    }
}
