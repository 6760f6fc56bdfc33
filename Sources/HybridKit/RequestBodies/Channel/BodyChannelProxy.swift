import Foundation
import Logging
import Synchronization

/// One full-proxy request over the body channel, in one HTTP exchange: the head names the request (its descriptor
/// in `X-Hybrid-Proxy`, as on the scheme's `/__hybrid__/proxy`), the body is the request's body, and the answer is
/// the proxied response, streamed back on the same connection as it arrives. The proxy starts upstream when the
/// head is accepted and sends the body's bytes as they land in the store (the same bounded ``BodyStore`` the
/// uploads use: the body is reserved, sized and owned exactly as an upload's), so a hooked POST costs one round trip
/// through the channel instead of a reservation, an upload and a proxy request.
///
/// The wire answer is always readable by the page that asked (CORS for its origin) and always `200` on the wire,
/// with the real response's status, reason phrase and headers in `X-Hybrid-Head` (percent-encoded JSON): the engine
/// must not follow a redirect, ask for credentials on a 401 or decode a body the proxy already decoded. The hooks
/// rebuild the page's `Response` from it. Owned by the connection that carries it; ``cancel()`` when it closes.
public final class BodyChannelProxy: Sendable {
    /// What the connection writes, in order: one `head`, any `data`, then `end`; or `abort` (close the connection
    /// without finishing the answer) once the head is out.
    public enum Event: Sendable {
        case head(status: Int, headers: [(String, String)])
        case data(Data)
        case end
        case abort
    }

    /// The response header that carries the proxied response's head.
    public static let headHeader = "X-Hybrid-Head"

    /// Where the request's body goes as it arrives (reserved with the head's `Content-Length`).
    public let upload: BodyChannelUpload
    /// The page's origin (the head's `Origin`), which the answer's CORS headers name.
    public let origin: String

    private struct State {
        var cancelling: (any ProxyCancelling)?
        var body: StoredBody?
        var headSent = false
        var ended = false
    }

    private let state: Mutex<State>
    private let proxy: any RequestProxying
    private let plan: InterceptingSchemeHandler.ProxyPlan

    init(
        upload: BodyChannelUpload, origin: String, body: StoredBody, proxy: any RequestProxying,
        plan: InterceptingSchemeHandler.ProxyPlan
    ) {
        self.upload = upload
        self.origin = origin
        self.proxy = proxy
        self.plan = plan
        state = Mutex(State(body: body))
    }

    /// Starts the proxied request; `events` may be called on any thread, in order, never after `end` or `abort`.
    func start(_ events: @escaping @Sendable (Event) -> Void) {
        let origin = origin
        let backToPage = plan.backToPage
        let method = plan.request.method
        let cancelling = proxy.perform(plan.request) { [weak self] event in
            guard let self else { return }
            switch event {
            case .response(let head):
                let server = head.url.host(percentEncoded: false) ?? "the server"
                // The hooks rebuild the page's `Response` from this head, and its constructor throws a RangeError
                // for a status outside 200–599: a readable refusal says why instead, and the rest is not fetched.
                guard Self.pageStatuses.contains(head.statusCode) else {
                    return self.refuse(
                        "\(server) answered with status \(head.statusCode), which a page's Response cannot carry "
                            + "(200–599); fix the server's status", url: head.url, events)
                }
                let response = InterceptingSchemeHandler.schemeResponse(for: head, pageURL: backToPage(head.url))
                var headers = Self.wireHeaders(for: response, origin: origin)
                // An engine drops an answer with a header past its limit (WebKitGTK's libsoup: 64 KiB) as a network
                // error, and the hooks then send the request again the other way: upstream would see it twice.
                let carried = headers.first { $0.0 == Self.headHeader }?.1.utf8.count ?? 0
                guard carried <= Self.maxCarriedHeadBytes else {
                    return self.refuse(
                        "\(server)'s answer has a head of \(carried) bytes as the body channel carries it, over its "
                            + "\(Self.maxCarriedHeadBytes / 1024) KiB bound; send fewer or smaller response headers, or "
                            + "give RequestInterception no bodyChannel (requests then go through the scheme)",
                        url: head.url, events)
                }
                if let length = Self.wireLength(of: head, method: method) {
                    headers.append(("Content-Length", String(length)))
                }
                guard self.mark({ $0.headSent = true }) else { return }
                events(.head(status: 200, headers: headers))
            case .data(let data):
                guard self.mark({ _ in }) else { return }
                events(.data(data))
            case .finished:
                guard self.end() else { return }
                events(.end)
            case .failed(let error):
                let headSent = self.state.withLock { $0.headSent }
                guard self.end() else { return }
                if headSent || error == .cancelled { return events(.abort) }
                // Before the head: a readable refusal the hooks turn into the page's TypeError, as on the scheme.
                for event in Self.refusal(502, error.pageMessage, origin: origin) { events(event) }
            }
        }
        // Ended before the handle was kept (a refused head, or a cancel while `perform` ran): stopped here.
        let ended = state.withLock { state -> Bool in
            if state.ended { return true }
            state.cancelling = cancelling
            return false
        }
        if ended { cancelling.cancel() }
    }

    /// Ends the exchange with a readable refusal (the page's fetch rejects with `message`; the hooks do not send
    /// the request again), stopping the proxy's request.
    private func refuse(_ message: String, url: URL, _ events: @Sendable (Event) -> Void) {
        let cancelling = state.withLock { $0.cancelling }
        guard end() else { return }
        cancelling?.cancel()
        Self.logger.warning("\(message)", metadata: ["url": "\(url.absoluteString)"])
        for event in Self.refusal(502, message, origin: origin) { events(event) }
    }

    /// Whether the exchange ended (answered, failed or cancelled): the body's remaining bytes have nowhere to go and
    /// the answer (if any) is on its way to the connection.
    public var isEnded: Bool { state.withLock { $0.ended } }

    /// The connection closed or failed: the proxy's work stops and the body goes.
    public func cancel() {
        let cancelling = state.withLock { $0.cancelling }
        _ = end()
        cancelling?.cancel()
    }

    /// Applies `change` unless the exchange ended; false when it had.
    private func mark(_ change: (inout State) -> Void) -> Bool {
        state.withLock { state in
            guard !state.ended else { return false }
            change(&state)
            return true
        }
    }

    /// Ends the exchange once: frees the stored body (a body still arriving is dropped, and later bytes refused).
    private func end() -> Bool {
        let body: StoredBody?? = state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            defer {
                state.body = nil
                state.cancelling = nil
            }
            return .some(state.body)
        }
        guard let body else { return false }
        body?.release()
        return true
    }

    /// The wire headers of an answer carrying `response`: CORS for `origin`, the head in ``headHeader``.
    static func wireHeaders(for response: SchemeResponse, origin: String) -> [(String, String)] {
        var pairs: [[String]] = []
        // The hooks pass these to `new Headers`, which throws on a name that is no token or a value past U+00FF.
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) where HTTPToken.isToken(name) {
            pairs.append([name, Self.byteString(value)])
        }
        let head = JSONValue.object([
            "status": .number(Double(response.statusCode)),
            "statusText": .string(Self.statusText(response.reasonPhrase ?? "")),
            "headers": .array(pairs.map { .array($0.map(JSONValue.string)) }),
        ])
        let json = (try? JSONEncoder().encode(head)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let encoded = json.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? ""
        return BodyChannelRoutes.answerHeaders(for: origin) + [
            (headHeader, encoded), ("Content-Type", "application/octet-stream"), ("Cache-Control", "no-store"),
        ]
    }

    /// The length the wire answer announces: the upstream body's when its head declares one for the bytes the proxy
    /// hands over (one plain `Content-Length`, no encoding, a status and method that carry a body), else nil (the
    /// answer goes chunked). With it the engine has the answer once its last byte lands instead of waiting for the
    /// chunked terminator, which the proxy can only send after the client saw the upstream body end. The
    /// connection holds the proxy to it: more bytes, or an end short of it, close the connection (the page's body
    /// fails as with a cut connection) rather than desynchronise a kept-alive one.
    static func wireLength(of head: ProxiedResponseHead, method: String) -> Int? {
        let status = head.statusCode
        guard method.uppercased() != "HEAD", status >= 200, status != 204, status != 304 else { return nil }
        var length: Int?
        for (name, value) in head.headers {
            switch name.lowercased() {
            case "content-encoding", "transfer-encoding": return nil
            case "content-length":
                // Repeated (even with equal values) or not a plain decimal: not a length to promise the engine.
                guard length == nil, !value.isEmpty, value.utf8.allSatisfy({ (48...57).contains($0) }),
                    let parsed = Int(value)
                else { return nil }
                length = parsed
            default: continue
            }
        }
        return length
    }

    /// A readable error answer (the page's fetch rejects with `message`), as events.
    public static func refusal(_ status: Int, _ message: String, origin: String) -> [Event] {
        let body = (try? JSONEncoder().encode(JSONValue.object(["error": .string(message)]))) ?? Data("{}".utf8)
        let response = SchemeResponse(
            statusCode: status, headers: ["X-Hybrid-Proxy-Error": "1", "Content-Type": "application/json"])
        return [.head(status: status, headers: wireHeaders(for: response, origin: origin)), .data(body), .end]
    }

    /// `value` as the page would read it from a network response: a header value is bytes, and Fetch shows each
    /// byte as one character (U+0000–U+00FF). The HTTP client decoded the bytes as UTF-8; a value with anything
    /// past ASCII is turned back into its bytes, so `new Headers` takes it (a raw UTF-8 `☃` made it throw).
    static func byteString(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 >= 0x80 }) else { return value }
        var text = ""
        for byte in value.utf8 { text.unicodeScalars.append(Unicode.Scalar(byte)) }
        return text
    }

    /// The most bytes ``headHeader`` may take (percent-encoded JSON: up to three times the head's size). Below
    /// every engine's header limit; answer heads are a few kilobytes.
    static let maxCarriedHeadBytes = 32 * 1024

    /// Statuses the page's `Response` constructor takes.
    static let pageStatuses = 200...599

    /// `reason` with what `new Response(…, {statusText})` refuses left out: it takes RFC 9110's reason-phrase only
    /// (HTAB, SP, VCHAR, obs-text: characters up to U+00FF), and a server's phrase must never make the page's
    /// fetch throw. "OK", "Größe" pass unchanged; "☃" and control characters go.
    static func statusText(_ reason: String) -> String {
        var text = ""
        for scalar in reason.unicodeScalars
        where scalar == "\t" || (0x20...0x7E).contains(scalar.value) || (0x80...0xFF).contains(scalar.value) {
            text.unicodeScalars.append(scalar)
        }
        return text
    }

    private static let logger = Logger(label: "hybrid.bodies")

    /// What ``headHeader`` leaves as it is: every visible ASCII character but `%` (the hooks' `decodeURIComponent`
    /// changes nothing else, and a header value takes them all), so an ASCII head costs about its own size, not
    /// three times it, against ``maxCarriedHeadBytes``.
    private static let unreserved = CharacterSet(charactersIn: Unicode.Scalar(0x21)...Unicode.Scalar(0x7E))
        .subtracting(CharacterSet(charactersIn: "%"))
}

extension InterceptingSchemeHandler {
    /// Whether the body channel may take proxy requests from `origin` for this view: one of its pages, full proxy on.
    func takesChannelProxy(from origin: String) -> Bool {
        proxy != nil && switches.hooksEnabled && switches.proxyEnabled && served(origin)
    }

    /// The body channel's proxy request from `origin` (lower-cased): the checks of the scheme's proxy path, then the
    /// body reserved in the store and claimed by the request, as an upload's would be.
    func openChannelProxy(
        origin: String, descriptor header: String, length: Int
    ) throws(BodyChannelRefusal) -> BodyChannelProxy {
        // Not one of this view's pages: the same refusal as an upload from another origin.
        guard served(origin) else { throw .wrongOrigin(origin) }
        guard let proxy, switches.hooksEnabled, switches.proxyEnabled else { throw .proxyUnavailable }
        guard let descriptor = ProxyDescriptor.decode(header) else {
            throw .badDescriptor("not percent-encoded JSON with a url, a method and headers")
        }
        guard descriptor.bodyID == nil else {
            throw .badDescriptor("it names a stored body; a proxy request over the channel carries its own")
        }
        if let refusal = proxyRefusal(for: descriptor, from: origin) { throw .proxyRefused(refusal) }
        let owner = BodyOwner(origin: origin, scope: scope)
        let id: String
        do {
            id = try store.begin(size: length, contentType: nil, owner: owner)
        } catch {
            throw .store(error)
        }
        let body: StoredBody
        do {
            _ = try store.openChannelUpload(id, owner: owner)
            body = try store.claim(id, owner: owner)
        } catch {
            store.discard(id, owner: owner)
            throw .store(error)
        }
        let customScheme = origin.firstIndex(of: ":").map { String(origin[..<$0]) }
        let plan: ProxyPlan
        switch proxyPlan(
            descriptor, customScheme: customScheme, body: body.completeData, streamed: body, inlineType: nil)
        {
        case .success(let made): plan = made
        case .failure(let refusal):
            body.release()
            throw .badDescriptor(refusal.message)
        }
        let upload = BodyChannelUpload(store: store, id: id, owner: owner, expected: length)
        return BodyChannelProxy(upload: upload, origin: origin, body: body, proxy: proxy, plan: plan)
    }
}
