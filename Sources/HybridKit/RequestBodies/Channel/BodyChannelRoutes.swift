import Synchronization

/// What the body channel answers, whatever serves it: which pages may upload (one entry per request-hook key, that
/// is per view), CORS for the origin that reserved a body and for no other, and the checks an upload passes before a
/// byte of it is read.
///
/// A page registers through its ``InterceptingSchemeHandler`` (the key its hooks hold and the store its bodies go
/// to); the entry goes with the handler. Thread-safe.
public final class BodyChannelRoutes: Sendable {
    /// The headers of one request, as far as the routes need them.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var origin: String?
        public var key: String?
        /// The reserved body's id.
        public var bodyID: String?
        /// nil: no Content-Length (chunked, or none).
        public var contentLength: Int?
        /// A proxy request's descriptor (the `X-Hybrid-Proxy` header, as the hooks send it to the scheme).
        public var descriptor: String?

        public init(
            method: String, path: String, origin: String?, key: String?, bodyID: String?, contentLength: Int?,
            descriptor: String? = nil
        ) {
            self.method = method
            self.path = path
            self.origin = origin
            self.key = key
            self.bodyID = bodyID
            self.contentLength = contentLength
            self.descriptor = descriptor
        }
    }

    /// The one path uploads go to. One URL for every upload lets the engine keep the CORS preflight's answer
    /// (`Access-Control-Max-Age`) instead of asking before each body.
    public static let path = "/body"
    /// Where full-proxy requests with their body go in one exchange (``BodyChannelProxy``). One URL for all of
    /// them, for the same reason.
    public static let proxyPath = "/proxy"
    /// The request header that carries a proxy request's descriptor.
    public static let descriptorHeader = ReservedRequest.proxyHeader
    /// The request header that carries the page's key (the same key the hooks put on bodies sent to the scheme).
    public static let keyHeader = ReservedRequest.bodyKeyHeader
    /// The request header that names the reserved body.
    public static let bodyHeader = ReservedRequest.bodyHeader

    private struct Registration: Sendable {
        weak var handler: InterceptingSchemeHandler?
    }

    private let registrations = Mutex<[String: Registration]>([:])
    private let opened = Atomic<Int>(0)
    private let preflights = Atomic<Int>(0)
    private let proxies = Atomic<Int>(0)

    public init() {}

    /// Uploads that passed every check and began (for tests and diagnostics).
    public var uploadsOpened: Int { opened.load(ordering: .relaxed) }
    /// CORS preflights answered with CORS headers (for tests and diagnostics: the engine keeps the answer, so a
    /// page asks once, not once per body).
    public var preflightsAllowed: Int { preflights.load(ordering: .relaxed) }

    /// Proxy requests that passed every check and went to the proxy (for tests and diagnostics).
    public var proxiesOpened: Int { proxies.load(ordering: .relaxed) }

    /// Pages whose handlers are still alive.
    public var registeredCount: Int {
        registrations.withLock { entries in entries.values.filter { $0.handler != nil }.count }
    }

    /// The listener at `endpoint` stopped: every page still registered is told not to use it again.
    public func channelClosed(_ endpoint: String) {
        let handlers = registrations.withLock { entries in entries.values.compactMap(\.handler) }
        for handler in handlers { handler.bodyChannelClosed(endpoint) }
    }

    /// Lets the page behind `handler` upload bodies, with its key, into its store.
    public func register(_ handler: InterceptingSchemeHandler) {
        registrations.withLock { entries in
            entries = entries.filter { $0.value.handler != nil }
            entries[handler.bodyKey] = Registration(handler: handler)
        }
    }

    /// The CORS headers of an answer to `origin`.
    public static func corsHeaders(for origin: String) -> [(String, String)] {
        [
            ("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
            ("Access-Control-Allow-Methods", "POST"),
            ("Access-Control-Allow-Headers", "\(keyHeader.lowercased()), \(bodyHeader.lowercased()), content-type"),
            ("Access-Control-Max-Age", "600"),
        ]
    }

    /// The CORS headers of a preflight for a proxy request from `origin` (its descriptor is a header too).
    public static func proxyPreflightHeaders(for origin: String) -> [(String, String)] {
        [
            ("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
            ("Access-Control-Allow-Methods", "POST"),
            (
                "Access-Control-Allow-Headers",
                "\(keyHeader.lowercased()), \(descriptorHeader.lowercased()), content-type"
            ),
            ("Access-Control-Max-Age", "600"),
        ]
    }

    /// The CORS headers of a proxy answer to `origin`: the page may read the answer and its head header, nothing
    /// else of the wire's.
    public static func answerHeaders(for origin: String) -> [(String, String)] {
        [
            ("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
            ("Access-Control-Expose-Headers", BodyChannelProxy.headHeader.lowercased()),
        ]
    }

    /// The answer to a CORS preflight: the CORS headers when `origin` has a body reserved and waiting for its
    /// upload (a page asks right after reserving one), else nil (the engine then refuses the upload without
    /// sending it). A preflight carries no key and no id: the origin is all there is to go by.
    public func preflight(_ request: Request) -> [(String, String)]? {
        guard let origin = request.origin, origin != "null" else { return nil }
        let handlers = registrations.withLock { entries in entries.values.compactMap(\.handler) }
        if request.path == Self.proxyPath {
            // No body is reserved before a proxy request (that would be the leg it saves): the origin must be one
            // of a view's pages whose full proxy is on.
            guard handlers.contains(where: { $0.takesChannelProxy(from: origin.lowercased()) }) else { return nil }
            preflights.add(1, ordering: .relaxed)
            return Self.proxyPreflightHeaders(for: origin)
        }
        guard request.path == Self.path else { return nil }
        guard handlers.contains(where: { $0.store.awaitsChannelUpload(origin: origin.lowercased()) }) else {
            return nil
        }
        preflights.add(1, ordering: .relaxed)
        return Self.corsHeaders(for: origin)
    }

    /// Checks an upload's head, before any of its body is read, and opens it.
    public func open(_ request: Request) throws(BodyChannelRefusal) -> BodyChannelUpload {
        guard request.method.uppercased() == "POST", request.path == Self.path else {
            throw .notFound(method: request.method, path: request.path)
        }
        guard let id = request.bodyID, BodyStore.isWellFormedID(id) else { throw .store(.unknownBody) }
        guard let key = request.key, let handler = handler(forKey: key) else { throw .unknownKey }
        guard let origin = request.origin, origin != "null" else { throw .wrongOrigin(request.origin) }
        guard let length = request.contentLength else { throw .lengthRequired }
        let owner = BodyOwner(origin: origin.lowercased(), scope: handler.scope)
        let reserved: Int
        do {
            // Another origin's body is `unknownBody` too, on purpose (see the store).
            reserved = try handler.store.openChannelUpload(id, owner: owner)
        } catch {
            throw .store(error)
        }
        guard length == reserved else {
            handler.store.discard(id, owner: owner)
            throw .lengthMismatch(announced: length, reserved: reserved)
        }
        opened.add(1, ordering: .relaxed)
        return BodyChannelUpload(store: handler.store, id: id, owner: owner, expected: reserved)
    }

    /// Checks a proxy request's head, before any of its body is read: the key names the view, the `Origin` must be
    /// one of that view's pages, full proxy must be on for it, the length known and within the store's limits, the
    /// descriptor valid (its URL absolute, no stored body named: the body is this request's). Reserves the body,
    /// starts the proxy (upstream begins now; the body streams as it lands) and returns the exchange. `events`
    /// carries the answer (see ``BodyChannelProxy/Event``). What the proxy then refuses (a host or address its
    /// policy does not allow, a forbidden method; forbidden headers are dropped) comes back as a readable 502.
    public func openProxy(
        _ request: Request, events: @escaping @Sendable (BodyChannelProxy.Event) -> Void
    ) throws(BodyChannelRefusal) -> BodyChannelProxy {
        guard request.method.uppercased() == "POST", request.path == Self.proxyPath else {
            throw .notFound(method: request.method, path: request.path)
        }
        guard let key = request.key, let handler = handler(forKey: key) else { throw .unknownKey }
        guard let origin = request.origin, origin != "null" else { throw .wrongOrigin(request.origin) }
        guard let length = request.contentLength else { throw .lengthRequired }
        guard let header = request.descriptor else { throw .badDescriptor("no \(Self.descriptorHeader) header") }
        let exchange = try handler.openChannelProxy(origin: origin.lowercased(), descriptor: header, length: length)
        proxies.add(1, ordering: .relaxed)
        exchange.start(events)
        return exchange
    }

    private func handler(forKey key: String) -> InterceptingSchemeHandler? {
        // Every registered key is compared in full (no early exit on the first differing byte), so response times
        // say nothing about how much of a guessed key was right.
        let candidates = registrations.withLock { entries in entries.map { ($0.key, $0.value.handler) } }
        var found: InterceptingSchemeHandler?
        for (registered, handler) in candidates where Self.constantTimeEqual(registered, key) {
            found = handler
        }
        return found
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

}
