import Foundation

/// Serves requests for a custom URL scheme (WKURLSchemeHandler, `webkit_web_context_register_uri_scheme`).
/// Called on the engine's actor.
@EngineActor
public protocol SchemeHandler: AnyObject, Sendable {
    func start(_ task: any SchemeTask)
    /// The engine no longer wants the response (navigation away, view closed). Stop sending to `task`.
    func stop(_ task: any SchemeTask)
    /// Whether the engine may read the body of `request` (URL, method and headers; no body yet), asked before
    /// it does for requests that may carry one. WebKitGTK 2.50 crashes the app reading a body that holds Blob
    /// data a page sent to a custom scheme; a handler that can tell the bodies it vouches for says no to the
    /// rest, and gets the request with ``EngineRequest/bodyWithheld`` set instead. By default every body is read.
    nonisolated func mayReadBody(of request: EngineRequest) -> Bool
    /// Whether the handler sends a request's ``EngineRequest/bodySource`` when its `body` is nil (the bytes are
    /// still arriving). Wrappers that stream bodies wait for the whole body before handing a request to a handler
    /// that does not (the default), so no handler loses a body it never knew to wait for.
    nonisolated var readsBodySource: Bool { get }
    /// The largest request body the engine reads for this handler, in bytes (``RequestBodyLimit/defaultMaximum``
    /// unless the handler says otherwise). The engine stops reading a larger one at the limit and fails the request
    /// (a network error in the page, a warning in the log); the handler never sees it.
    nonisolated var maximumBodySize: Int { get }
}

extension SchemeHandler {
    public nonisolated func mayReadBody(of request: EngineRequest) -> Bool { true }
    public nonisolated var readsBodySource: Bool { false }
    public nonisolated var maximumBodySize: Int { RequestBodyLimit.defaultMaximum }
}

/// The head of a response to a scheme request.
public struct SchemeResponse: Sendable, Equatable {
    public var statusCode: Int
    public var headers: [String: String]
    /// The body length when known in advance; `nil` streams until ``SchemeTask/finish()``.
    public var expectedLength: Int?
    /// The status line's reason phrase (`statusText` in the page); `nil` lets the engine pick the standard one.
    public var reasonPhrase: String?
    /// Set when the handler followed redirects itself (nil: the request's own URL answered). Engines cannot be
    /// told through their scheme-handler APIs; layers above (the request hooks) pass it on to the page.
    public var redirection: Redirection?

    /// Where the redirects a handler followed led.
    public struct Redirection: Sendable, Equatable {
        /// The URL that finally answered.
        public var url: URL
        /// How many hops re-sent the request body (307 and 308 keep it; engines report upload progress for each).
        public var bodyResends: Int
        /// Whether a hop on the way was on another origin than the request's, even if the last one is back on it.
        /// An engine's own `fetch` would then have dropped credentials and tainted the answer
        /// (``RedirectHop/crossedOrigins``).
        public var crossedOrigins: Bool

        public init(url: URL, bodyResends: Int = 0, crossedOrigins: Bool = false) {
            self.url = url
            self.bodyResends = bodyResends
            self.crossedOrigins = crossedOrigins
        }
    }

    public init(
        statusCode: Int = 200, headers: [String: String] = [:], expectedLength: Int? = nil, reasonPhrase: String? = nil,
        redirection: Redirection? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.expectedLength = expectedLength
        self.reasonPhrase = reasonPhrase
        self.redirection = redirection
    }
}

/// One request to a ``SchemeHandler``: read the request, then `respond`, `send` any number of times, `finish`;
/// or `fail`, on the engine's actor; calls after the task ended are ignored.
@EngineActor
public protocol SchemeTask: AnyObject, Sendable {
    /// The request, with its body when the engine exposes one. Readable anywhere: it never changes.
    nonisolated var request: EngineRequest { get }
    func respond(_ response: SchemeResponse)
    func send(_ data: Data)
    func finish()
    func fail(_ error: SchemeTaskError)
}

/// Why a scheme task failed, as the page's network stack will report it.
public enum SchemeTaskError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound(String)
    case forbidden(String)
    case failed(String)

    public var description: String {
        switch self {
        case .notFound(let what): "not found: \(what)"
        case .forbidden(let why): "forbidden: \(why)"
        case .failed(let why): "failed: \(why)"
        }
    }
}

extension SchemeTask {
    /// Sends a whole response at once.
    public func respond(status: Int = 200, headers: [String: String] = [:], body: Data) {
        respond(SchemeResponse(statusCode: status, headers: headers, expectedLength: body.count))
        if !body.isEmpty { send(body) }
        finish()
    }
}
