import Foundation
import Logging
import Synchronization

/// Wraps the scheme handler of a custom scheme (a package handler, say) with what the request hooks need:
///
/// - the reserved paths `/__hybrid__/body…` (bodies uploaded in chunks, into a ``BodyStore``) and
///   `/__hybrid__/proxy` (requests performed by a ``RequestProxying``, the response streamed back) on every origin
///   of the scheme;
/// - requests tagged with a body id (`X-Hybrid-Body` header or `__hybrid_body` query item) get their stored body
///   back, tag removed, before the inner handler sees them.
///
/// Bodies are bound to the origin that uploaded them and to this handler (one per view), so no other page or
/// origin can use them; a request whose `Origin` header names another origin is refused.
public nonisolated final class InterceptingSchemeHandler: SchemeHandler {
    public let inner: any SchemeHandler
    public let store: BodyStore
    public let switches: InterceptionSwitches
    let proxy: (any RequestProxying)?
    /// The pages' strategies: the proxy serves full-proxy pages only.
    let config: InterceptionConfig
    private let hop: EngineHop
    private let mapURL: @Sendable (URL) -> URL?
    // Tasks handed to the inner handler in a wrapper, and proxied requests in flight, by the engine task's identity.
    private let attached = Mutex<[ObjectIdentifier: AttachedBodyTask]>([:])
    private let proxied = Mutex<[ObjectIdentifier: ProxyFlight]>([:])
    /// The origins of this view's requests lately (its pages): the body channel takes proxy requests from these
    /// origins only (see ``BodyChannelRoutes/openProxy(_:events:)``).
    private let servedOrigins = Mutex<[String]>([])
    static let servedOriginsKept = 16

    /// - Parameters:
    ///   - inner: the handler that serves the scheme once a request's body is attached.
    ///   - store: where the hooks' bodies wait for their requests.
    ///   - switches: which hooks and strategies are on, shared with the page's hooks.
    ///   - proxy: native networking for full-proxy pages; without it the proxy path refuses.
    ///   - hop: runs a closure on the engine's actor (proxy events arrive on other threads).
    ///   - mapURL: the http(s) URL a custom-scheme URL stands for (``OfflineURLMapping/packageURL(for:)``);
    ///     by default the scheme is swapped for https.
    ///   - bodyKey: the secret the page's hooks send with each body (random by default), so other scripts cannot
    ///     store bodies.
    ///   - config: which pages are full-proxy pages (the hooks' own rules): the proxy performs requests only for
    ///     those, whatever a page sends.
    public init(
        wrapping inner: any SchemeHandler, store: BodyStore = BodyStore(),
        switches: InterceptionSwitches = InterceptionSwitches(), proxy: (any RequestProxying)? = nil,
        hop: @escaping EngineHop, mapURL: (@Sendable (URL) -> URL?)? = nil, bodyKey: String = BodyStore.randomID(),
        config: InterceptionConfig = InterceptionConfig()
    ) {
        self.bodyKey = bodyKey
        self.inner = inner
        self.store = store
        self.switches = switches
        self.config = config
        self.proxy = proxy
        self.hop = hop
        self.mapURL = mapURL ?? InterceptingSchemeHandler.swapToHTTPS
    }

    /// Bodies this handler stores belong to it alone (with their origin): see ``BodyOwner``.
    var scope: ObjectIdentifier { ObjectIdentifier(self) }

    /// The key the hooks put on the bodies they vouch for (``RequestHooksScript`` bakes it into the page's hooks).
    public let bodyKey: String

    /// The inner handler's: the bodies read here are the ones it serves (slices of an upload are 1 MB each).
    public var maximumBodySize: Int { inner.maximumBodySize }

    /// Only bodies carrying the page's body key are read: the hooks send every Blob-backed body through the store
    /// and key the others, so a body without the key (a Worker's fetch, an unhooked frame, a forged request) may
    /// hold Blob data, which WebKitGTK 2.50 crashes the app reading. A tagged request's body is the stored one.
    public func mayReadBody(of request: EngineRequest) -> Bool {
        if ReservedRequest(url: request.url, method: request.method) == nil, Self.bodyTag(of: request) != nil {
            return false
        }
        return request.header(ReservedRequest.bodyKeyHeader) == bodyKey
    }

    static let withheldMessage =
        "the request body was not read: on this scheme only bodies HybridKit's request hooks send are read "
        + "(reading a Blob body sent another way, from a Worker say, crashes WebKitGTK 2.50); send it from the page"

    /// Requests in the proxy right now (for tests and diagnostics).
    public var proxiedCount: Int { proxied.withLock { $0.count } }
    /// Rewritten requests (a body re-attached by id, a body key removed) with the inner handler or waiting for their
    /// body right now (for tests and diagnostics).
    public var attachedCount: Int { attached.withLock { $0.count } }

    @EngineActor public func start(_ task: any SchemeTask) {
        let request = task.request
        guard let origin = Self.origin(of: request.url) else {
            if request.bodyWithheld { return task.fail(.forbidden(Self.withheldMessage)) }
            inner.start(task)
            return
        }
        noteServed(origin)
        if let reserved = ReservedRequest(url: request.url, method: request.method) {
            if request.bodyWithheld { return reply(task, 403, Self.withheldMessage) }
            guard Self.originHeaderMatches(request, origin) else {
                reply(task, 403, "the request comes from another origin than \(origin)")
                return
            }
            serve(reserved, task, owner: BodyOwner(origin: origin, scope: scope))
            return
        }
        guard let id = Self.bodyTag(of: request) else {
            if request.bodyWithheld { return task.fail(.forbidden(Self.withheldMessage)) }
            guard request.header(ReservedRequest.bodyKeyHeader) != nil else { return inner.start(task) }
            // The key stays here: the inner handler may send the request on to a server.
            startRewritten(
                task, request: Self.removingKey(from: request), redirectMode: .follow, reportsRedirection: false)
            return
        }
        guard Self.originHeaderMatches(request, origin) else {
            task.fail(.forbidden("a request body can only be sent by the origin that uploaded it"))
            return
        }
        // Claimed, not taken: the hooks send a fetch's tagged request as soon as the first chunk named the id, and
        // the inner handler's network fetch streams the body as the rest lands.
        let body: StoredBody
        do {
            body = try store.claim(id, owner: BodyOwner(origin: origin, scope: scope))
        } catch {
            task.fail(.forbidden(error.description))
            return
        }
        let mode = request.header(ReservedRequest.redirectHeader).flatMap(ProxiedRequest.RedirectMode.init) ?? .follow
        var untagged = Self.removingTag(from: request)
        untagged.body = body.completeData
        untagged.bodySource = body
        // The type the body was serialized with wins: a form carrier request says urlencoded, the body is multipart.
        if let type = body.contentType {
            untagged.headers.removeAll { $0.name.caseInsensitiveCompare("Content-Type") == .orderedSame }
            untagged.headers.append(("Content-Type", type))
        }
        let rewritten = Self.removingKey(from: untagged)
        guard rewritten.body == nil, !inner.readsBodySource else {
            return startRewritten(
                task, request: rewritten, redirectMode: mode, reportsRedirection: true, storedBody: body)
        }
        // An inner handler that only reads `body` gets the request once the whole body is in.
        let wrapper = attach(task, request: rewritten, redirectMode: mode, reportsRedirection: true, storedBody: body)
        let hop = self.hop
        Task { [weak self] in
            let outcome: Result<Data, any Error>
            do {
                outcome = .success(try await body.complete())
            } catch {
                outcome = .failure(error)
            }
            hop { [weak self] in
                guard let self, self.attached.withLock({ $0[ObjectIdentifier(task)] === wrapper }) else { return }
                switch outcome {
                case .success(let data):
                    wrapper.request.body = data
                    wrapper.started = true
                    self.inner.start(wrapper)
                case .failure(let error):
                    wrapper.fail(.failed("the request body did not arrive in full: \(error)"))
                }
            }
        }
    }

    /// Remembers `origin` as one of this view's pages (the most recent few, so memory stays bounded).
    private func noteServed(_ origin: String) {
        servedOrigins.withLock { origins in
            if origins.last == origin { return }
            origins.removeAll { $0 == origin }
            origins.append(origin)
            if origins.count > Self.servedOriginsKept { origins.removeFirst() }
        }
    }

    /// Whether a request of this view came lately from `origin` (lower-cased, as ``origin(of:)`` writes it).
    func served(_ origin: String) -> Bool { servedOrigins.withLock { $0.contains(origin) } }

    @EngineActor private func startRewritten(
        _ task: any SchemeTask, request: EngineRequest, redirectMode: ProxiedRequest.RedirectMode,
        reportsRedirection: Bool, storedBody: StoredBody? = nil
    ) {
        let wrapper = attach(
            task, request: request, redirectMode: redirectMode, reportsRedirection: reportsRedirection,
            storedBody: storedBody)
        wrapper.started = true
        inner.start(wrapper)
    }

    @EngineActor private func attach(
        _ task: any SchemeTask, request: EngineRequest, redirectMode: ProxiedRequest.RedirectMode,
        reportsRedirection: Bool, storedBody: StoredBody?
    ) -> AttachedBodyTask {
        let wrapper = AttachedBodyTask(
            base: task, request: request, redirectMode: redirectMode, reportsRedirection: reportsRedirection,
            storedBody: storedBody
        ) { [weak self] wrapper in
            self?.attached.withLock { $0[ObjectIdentifier(wrapper.base)] = nil }
        }
        attached.withLock { $0[ObjectIdentifier(task)] = wrapper }
        return wrapper
    }

    @EngineActor public func stop(_ task: any SchemeTask) {
        if let flight = proxied.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) }) {
            flight.cancel()
            return
        }
        if let wrapper = attached.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) }) {
            // Before the inner handler's fetch lets go of it: an upload still going is refused from now on.
            wrapper.releaseBody()
            if wrapper.started { inner.stop(wrapper) }
            return
        }
        inner.stop(task)
    }

    // MARK: Reserved paths

    @EngineActor private func serve(_ reserved: ReservedRequest, _ task: any SchemeTask, owner: BodyOwner) {
        let request = task.request
        switch reserved {
        case .invalid(let why):
            reply(task, 400, why)
        case .beginBody(let size):
            guard switches.hooksEnabled else { return reply(task, 403, "request interception is switched off") }
            do throws(BodyStoreError) {
                let id = try store.begin(
                    size: size, contentType: request.header(ReservedRequest.contentTypeHeader), owner: owner)
                let received: Int
                do {
                    received = try store.append(request.body ?? Data(), at: 0, to: id, owner: owner)
                } catch {
                    store.discard(id, owner: owner)
                    throw error
                }
                replyJSON(task, ["id": .string(id), "received": .number(Double(received))])
            } catch {
                reply(task, Self.status(for: error), error.description)
            }
        case .appendBody(let id, let offset):
            // A first chunk at 0 comes only from hooks that reserved the body for the body channel and could not
            // reach it: the bytes now come through the page, slower, and the host should hear why once.
            if offset == 0 { reportChannelFallback() }
            do {
                let received = try store.append(request.body ?? Data(), at: offset, to: id, owner: owner)
                replyJSON(task, ["received": .number(Double(received))])
            } catch {
                if error != .unknownBody { store.discard(id, owner: owner) }
                reply(task, Self.status(for: error), error.description)
            }
        case .discardBody(let id):
            store.discard(id, owner: owner)
            task.respond(status: 204, body: Data())
        case .proxy:
            startProxy(task, owner: owner)
        }
    }

    private let fellBack = Atomic<Bool>(false)
    /// The warning logged (once per handler) when bodies fall back from the body channel.
    public static let channelFallbackAdvice =
        "request bodies fell back from the body channel to uploads through the page (slower, more memory): the "
        + "page could not reach the channel. Keep the LoopbackBodyChannel running while pages are open "
        + "(start() it before loading, restart it after the app resumes), or leave it out to stop trying"

    /// The body channel at `endpoint` stopped: this view's pages are told (through the switches) never to send it
    /// a body again, since another process may take its port, and the host hears once that bodies go in slices.
    public func bodyChannelClosed(_ endpoint: String) {
        switches.update { settings in
            guard !settings.closedBodyChannels.contains(endpoint) else { return }
            settings.closedBodyChannels.append(endpoint)
            if settings.closedBodyChannels.count > Self.closedChannelsKept { settings.closedBodyChannels.removeFirst() }
        }
        reportChannelFallback()
    }

    static let closedChannelsKept = 8

    private func reportChannelFallback() {
        guard !fellBack.exchange(true, ordering: .relaxed) else { return }
        Logger(label: "hybrid.bodies").warning("\(Self.channelFallbackAdvice)")
    }

    @EngineActor private func startProxy(_ task: any SchemeTask, owner: BodyOwner) {
        let request = task.request
        guard let proxy, switches.hooksEnabled, switches.proxyEnabled else {
            return reply(task, 403, Self.proxyUnavailable)
        }
        guard let header = request.header(ReservedRequest.proxyHeader), let descriptor = ProxyDescriptor.decode(header)
        else { return reply(task, 400, "the proxy request has no valid \(ReservedRequest.proxyHeader) header") }
        if let refusal = proxyRefusal(for: descriptor, from: owner.origin) {
            Logger(label: "hybrid.bodies").warning("\(refusal)")
            return reply(task, 403, refusal)
        }
        var body = request.body
        var streamed: StoredBody?
        if let id = descriptor.bodyID {
            // Claimed, not taken: the hook sends the proxy request while the rest of the body is still uploading,
            // and the proxy streams it as the chunks land.
            do {
                let stored = try store.claim(id, owner: owner)
                streamed = stored
                body = stored.completeData
            } catch {
                return reply(task, Self.status(for: error), error.description)
            }
        }
        let inlineType = descriptor.inlineType == true ? request.header("Content-Type") : nil
        let plan: ProxyPlan
        switch proxyPlan(
            descriptor, customScheme: request.url.scheme?.lowercased(), body: body, streamed: streamed,
            inlineType: inlineType)
        {
        case .success(let made): plan = made
        case .failure(let refusal):
            streamed?.release()
            return reply(task, 400, refusal.message)
        }
        let outgoing = plan.request
        let backToPage = plan.backToPage
        let key = ObjectIdentifier(task)
        let hop = self.hop
        let headSent = HeadSent()
        // In the table before the proxy starts: a proxy may report synchronously, and hops check the table.
        let flight = ProxyFlight(body: streamed)
        proxied.withLock { $0[key] = flight }
        // Hops may run out of order (one Task each): events queue in the order the proxy reported them and every
        // hop delivers all that are queued, so the task sees head, data and end in order.
        let cancelling = proxy.perform(outgoing) { [weak self] event in
            flight.pending.withLock { $0.append(event) }
            hop { [weak self] in
                guard let self else { return }
                for event in flight.pending.withLock({ queued in
                    defer { queued.removeAll() }; return queued
                }) {
                    guard self.proxied.withLock({ $0[key] === flight }) else { return }
                    self.deliver(event, to: task, key: key, headSent: headSent, pageURL: backToPage)
                    switch event {
                    case .finished, .failed: flight.end()
                    case .response, .data: break
                    }
                }
            }
        }
        flight.track(cancelling)
    }

    static let proxyUnavailable =
        "full proxy is not available for this page (no proxy configured or switched off)"

    /// Why a proxy request from `origin` for `descriptor` is refused, or nil when the proxy may perform it. The page
    /// the request says it comes from (`firstParty`) decides the `Origin` the proxy sends and the SameSite and
    /// credential rules it applies, so it must be a page of the origin that sent the request; and it must be a
    /// full-proxy page (the hooks of any other page never send a proxy request: a page that does is forging one).
    func proxyRefusal(for descriptor: ProxyDescriptor, from origin: String) -> String? {
        guard let page = descriptor.firstParty, let pageURL = URL(string: page), Self.origin(of: pageURL) == origin
        else {
            return "a proxy request from \(origin) named another page (firstParty \(descriptor.firstParty ?? "none")) "
                + "as where it comes from; only the request hooks' own proxy requests are performed"
        }
        let degraded = switches.effective.degradedPages.contains { page.hasPrefix($0) }
        guard !degraded, config.strategy(for: page) == .fullProxy else {
            return "\(page) is not a full-proxy page by the InterceptionConfig this scheme handler was given, so the "
                + "proxy performs no request for it; give the page the fullProxy strategy in that configuration's rules "
                + "(RequestInterception and the container's feature hand the handler the hooks' own)"
        }
        return nil
    }

    /// What the proxy performs for a descriptor: the same rules whichever way the request came (the scheme's
    /// `/__hybrid__/proxy` or the body channel's `/proxy`); the proxy itself then applies its policy (hosts,
    /// addresses, sizes, time) and the Fetch rules for methods and headers, whichever way the request came.
    struct ProxyPlan {
        var request: ProxiedRequest
        /// The URL the page sees for a URL that answered (custom-scheme URLs stay on the custom scheme).
        var backToPage: @Sendable (URL) -> String
    }

    struct PlanRefusal: Error {
        let message: String
    }

    func proxyPlan(
        _ descriptor: ProxyDescriptor, customScheme: String?, body: Data?, streamed: StoredBody?, inlineType: String?
    ) -> Result<ProxyPlan, PlanRefusal> {
        guard let target = URL(string: descriptor.url), let scheme = target.scheme?.lowercased() else {
            return .failure(PlanRefusal(message: "'\(descriptor.url)' is not an absolute URL"))
        }
        let mapped = scheme == customScheme ? mapURL(target) : target
        guard let realURL = mapped else {
            return .failure(PlanRefusal(message: "'\(descriptor.url)' stands for no http(s) URL"))
        }
        let firstParty = descriptor.firstParty.flatMap(URL.init(string:)).map { url in
            url.scheme?.lowercased() == customScheme ? (mapURL(url) ?? url) : url
        }
        var headers = descriptor.headerPairs
        if let inlineType { headers.append(("Content-Type", inlineType)) }
        var outgoing = ProxiedRequest(
            url: realURL, method: descriptor.method, headers: headers, body: body,
            firstParty: firstParty,
            credentials: descriptor.credentials.flatMap(ProxiedRequest.Credentials.init(rawValue:)) ?? .sameOrigin,
            redirect: descriptor.redirect.flatMap(ProxiedRequest.RedirectMode.init(rawValue:)) ?? .follow)
        outgoing.streamedBody = streamed
        let backToPage: @Sendable (URL) -> String = { url in
            guard let customScheme, scheme == customScheme, url.host == realURL.host, url.port == realURL.port,
                let colon = url.absoluteString.firstIndex(of: ":")
            else { return url.absoluteString }
            return customScheme + url.absoluteString[colon...]
        }
        return .success(ProxyPlan(request: outgoing, backToPage: backToPage))
    }

    @EngineActor private func deliver(
        _ event: ProxyEvent, to task: any SchemeTask, key: ObjectIdentifier, headSent: HeadSent,
        pageURL: @Sendable (URL) -> String
    ) {
        switch event {
        case .response(let head):
            headSent.mark()
            task.respond(Self.schemeResponse(for: head, pageURL: pageURL(head.url)))
        case .data(let data):
            task.send(data)
        case .finished:
            proxied.withLock { $0[key] = nil }
            task.finish()
        case .failed(let error):
            proxied.withLock { $0[key] = nil }
            if error == .cancelled || headSent.isMarked { return task.fail(.failed(error.description)) }
            // Before the head: a readable refusal the hook turns into the page's network error.
            reply(task, 502, error.pageMessage, headers: ["X-Hybrid-Proxy-Error": "1"])
        }
    }

    // MARK: Helpers

    static func schemeResponse(for head: ProxiedResponseHead, pageURL: String) -> SchemeResponse {
        var headers: [String: String] = [:]
        var order: [String] = []
        let encoded = head.headers.contains { $0.name.caseInsensitiveCompare("Content-Encoding") == .orderedSame }
        var forged: [String] = []
        for (name, value) in head.headers {
            let lower = name.lowercased()
            // The proxy hands over decoded bytes; framing headers of the wire no longer describe them.
            if lower == "transfer-encoding" || lower == "content-encoding" || lower == "set-cookie"
                || lower == "set-cookie2" || (lower == "content-length" && encoded)
            {
                continue
            }
            // The hooks read X-Hybrid-* as native code's word (the final URL, `redirected`, a proxy refusal) and
            // hide them from the page: a server that sends them would forge `response.url`, `redirected` or a
            // refusal. Only native code sets them.
            if lower.hasPrefix(Self.internalHeaderPrefix) {
                forged.append(name)
                continue
            }
            if let key = order.first(where: { $0.lowercased() == lower }) {
                headers[key] = (headers[key] ?? "") + ", " + value
            } else {
                order.append(name)
                headers[name] = value
            }
        }
        if !forged.isEmpty {
            Logger(label: "hybrid.bodies").warning(
                """
                the proxied response's X-Hybrid-* headers were dropped: only HybridKit sets them (the page's hooks \
                take them as native code's word); rename them on the server
                """,
                metadata: ["url": "\(head.url.absoluteString)", "headers": "\(forged.sorted())"])
        }
        headers.merge(
            FinalURLHeaders.headers(for: pageURL, redirected: head.redirected, bodyResends: head.bodyResends)
        ) { $1 }
        return SchemeResponse(statusCode: head.statusCode, headers: headers, reasonPhrase: head.reasonPhrase)
    }

    /// The prefix of the headers native code and the hooks exchange (lowercased), never a server's.
    static let internalHeaderPrefix = "x-hybrid-"

    @EngineActor private func reply(
        _ task: any SchemeTask, _ status: Int, _ message: String, headers: [String: String] = [:]
    ) {
        replyJSON(task, ["error": .string(message)], status: status, headers: headers)
    }

    @EngineActor private func replyJSON(
        _ task: any SchemeTask, _ object: [String: JSONValue], status: Int = 200, headers: [String: String] = [:]
    ) {
        let body = (try? JSONEncoder().encode(JSONValue.object(object))) ?? Data("{}".utf8)
        var all = headers
        all["Content-Type"] = "application/json"
        all["Cache-Control"] = "no-store"
        task.respond(status: status, headers: all, body: body)
    }

    static func status(for error: any Error) -> Int {
        switch error as? BodyStoreError {
        case .bodyTooLarge: 413
        case .storeFull, .tooManyBodies, .originQuotaFull: 503
        case .unknownBody: 404
        default: 400
        }
    }

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    /// Requests without an `Origin` header come from the page's own origin (same-origin GETs omit it).
    static func originHeaderMatches(_ request: EngineRequest, _ origin: String) -> Bool {
        guard let header = request.header("Origin") else { return true }
        return header.lowercased() == origin
    }

    static func bodyTag(of request: EngineRequest) -> String? {
        request.header(ReservedRequest.bodyHeader) ?? ReservedRequest.bodyTag(in: request.url)
    }

    static func removingKey(from request: EngineRequest) -> EngineRequest {
        var result = request
        result.headers.removeAll { $0.name.caseInsensitiveCompare(ReservedRequest.bodyKeyHeader) == .orderedSame }
        return result
    }

    static func removingTag(from request: EngineRequest) -> EngineRequest {
        var result = request
        result.headers.removeAll {
            $0.name.caseInsensitiveCompare(ReservedRequest.bodyHeader) == .orderedSame
                || $0.name.caseInsensitiveCompare(ReservedRequest.redirectHeader) == .orderedSame
        }
        result.url = ReservedRequest.removingBodyTag(from: request.url)
        return result
    }

    @Sendable nonisolated static func swapToHTTPS(_ url: URL) -> URL? {
        guard let colon = url.absoluteString.firstIndex(of: ":") else { return nil }
        return URL(string: "https" + url.absoluteString[colon...])
    }
}

/// A proxied request in flight. Started, stopped and hopped to on the engine's actor; a lock rather than
/// that promise, so the compiler checks it.
private final class ProxyFlight: Sendable {
    private struct State {
        var cancelling: (any ProxyCancelling)?
        /// The stored body the proxy streams, released when the request ends however it ends.
        var body: StoredBody?
    }
    private let state: Mutex<State>
    /// Events reported by the proxy (any thread) not yet delivered on the executor.
    let pending = Mutex<[ProxyEvent]>([])

    init(body: StoredBody?) { state = Mutex(State(body: body)) }

    func track(_ cancelling: any ProxyCancelling) { state.withLock { $0.cancelling = cancelling } }

    /// The request ended: frees the stored body and lets go of the proxy's handle, which (through its event
    /// callback) refers back to this flight.
    func end() { _ = finish() }

    /// The page stopped the request: cancels the proxy's work, then ends.
    func cancel() { finish()?.cancel() }

    private func finish() -> (any ProxyCancelling)? {
        let (body, cancelling) = state.withLock { state in
            defer { state = State() }
            return (state.body, state.cancelling)
        }
        body?.release()
        return cancelling
    }
}

/// Whether a proxied response's head reached the task (a later failure then fails the task rather than
/// answering with an error status).
private final class HeadSent: Sendable {
    private let sent = Atomic(false)
    func mark() { sent.store(true, ordering: .relaxed) }
    var isMarked: Bool { sent.load(ordering: .relaxed) }
}
