import Foundation
import HybridCookies
import Logging
import Synchronization

/// Network pages' side of first-screen prefetch, native half: the script message handler the page runtime
/// (PrefetchRuntime/network.js) asks before its main frame's same-origin GET or HEAD `fetch` goes to the network.
///
/// A network page's requests go from the engine straight to the server (WKWebView takes no scheme handler for
/// http or https), so the package path's stamp (``PrefetchAnsweringFetcher``) never reaches native code. A script
/// message with a reply does, on both engines, with the sending frame as the engine knows it. Who asks is read
/// from that frame only: the main frame, whose document is of the prefetcher's origin. What is asked is matched as
/// on the package path (``PrefetchAnswers/claim(_:credentials:page:events:fallback:)``); the answer is the whole
/// response (a reply is sent once), after its `Set-Cookie` effects reached the jar and the engine's store.
final class PrefetchMessageAnswers: ScriptMessageHandler {
    /// The handler name the runtime posts to (`window.webkit.messageHandlers[name]`, or `__hybridFramePost(name, …)`).
    nonisolated static let handlerName = "hybridPrefetchAnswers"

    let answers: PrefetchAnswers
    private let courier: PrefetchReplyCourier
    private let verifiesFrames: Bool
    private let logger = Logger(label: "hybrid.prefetch")
    private let refusalsLogged = Mutex<Set<PrefetchMessageRefusal>>([])

    init(answers: PrefetchAnswers, engine: any WebEngine) {
        self.answers = answers
        courier = PrefetchReplyCourier(engine: engine, prefetcher: answers.prefetcher)
        verifiesFrames = engine.verifiesMessageFrames
    }

    func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
        let prefetcher = answers.prefetcher
        let asked: PrefetchMessage
        do throws(PrefetchMessageRefusal) {
            asked = try check(message, reply: reply)
        } catch {
            prefetcher.metrics.count(.denied)
            // Once per kind of refusal and view: a page can post in a loop, and each line would reach the log.
            guard refusalsLogged.withLock({ $0.insert(error).inserted }) else {
                reply?.resolve(json: Self.refusal(error))
                return
            }
            let metadata: Logger.Metadata = [
                "why": "\(error)", "frame": "\(message.frame?.url?.absoluteString ?? "unknown")",
                "further": "refusals of this kind in this view are counted (hybrid.prefetches denied), not logged",
            ]
            // Only the host can fix an engine that does not vouch for frames; the rest is a page's doing.
            if error == .unverifiedFrame {
                logger.warning("network page's request not answered from its prefetch", metadata: metadata)
            } else {
                logger.notice("prefetch handler refused a message; nothing answered", metadata: metadata)
            }
            reply?.resolve(json: Self.refusal(error))
            return
        }
        guard let reply, let page = answers.currentPage else {
            reply?.resolve(json: Self.miss(more: false))
            return
        }
        switch asked.kind {
        case .firstScreen:
            answers.markFirstScreen(on: page)
            reply.resolve(json: #"{"v":1,"a":"ok"}"#)
        case .list:
            reply.resolve(json: list(page))
        case .fetch:
            guard let request = asked.request, let credentials = asked.credentials else {
                return reply.resolve(json: Self.refusal(.malformed))
            }
            let jar = credentials == .omit ? nil : answers.prefetcher.jar
            let courier = courier
            let document = answers.document
            Task {
                // The page may have changed its cookies an instant ago (`document.cookie`, a response of its own):
                // the engine's store has the change, the jar (kept in step by EngineCookieSync) maybe not yet, and
                // the claim's check reads the jar. Only when the engine would send what the jar would is it answered.
                if let jar, !(await courier.engineSendsWhatTheJarSends(jar, to: request.url, page: page)) {
                    return courier.settle(reply, json: Self.miss(more: true))
                }
                await self.answer(request, credentials: credentials, page: page, document: document, reply: reply)
            }
        }
    }

    /// The message, when the engine says the main frame of the prefetcher's origin sent it with this view's token.
    private func check(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) throws(PrefetchMessageRefusal)
        -> PrefetchMessage
    {
        guard let frame = message.frame else { throw verifiesFrames ? .notMainFrame : .unverifiedFrame }
        guard frame.isMainFrame else { throw .notMainFrame }
        guard frame.securityOrigin == answers.prefetcher.pageOrigin else { throw .otherOrigin }
        guard reply != nil else { throw .noReply }
        guard case .string(let text) = message.body else { throw .notAString }
        let asked = try PrefetchMessage.parse(text)
        guard asked.token == answers.token else { throw .wrongToken }
        if let request = asked.request, WebOrigin(request.url)?.description != answers.prefetcher.pageOrigin {
            throw .otherOriginRequest
        }
        return asked
    }

    private func answer(
        _ request: EngineRequest, credentials: PrefetchRequest.Credentials, page: URL, document: Int,
        reply: any ScriptMessageReply
    ) async {
        let prefetcher = answers.prefetcher
        // Before the head hands the response's cookies to the jar: what changed goes to the engine's store.
        let changes = prefetcher.jar.map(JarChangesPush.init)
        let courier = courier
        let collector = PrefetchAnswerCollector(limit: prefetcher.policy.maximumResponseBytes) { outcome in
            Task { await courier.deliver(outcome, changes: changes, page: page, url: request.url, to: reply) }
        }
        let entry = answers.claim(
            request, credentials: credentials, page: page, document: document, exactHeaders: true,
            cookiesWhenWhole: true,
            events: { collector.receive($0) },
            fallback: { why in collector.give(up: "\(why)") })
        guard let entry else {
            return courier.settle(reply, json: Self.miss(more: !prefetcher.pending(for: page).isEmpty))
        }
        collector.attach(entry)
        // A reply is sent once, so the page waits for the whole response: one whose head came within the claim
        // wait but whose body drips is given up at the claim wait too (the page fetches itself), as one with no head.
        DispatchQueue.global().asyncAfter(deadline: .now() + prefetcher.policy.claimWait.dispatchInterval) {
            collector.give(up: "not whole within PrefetchPolicy.claimWait (\(prefetcher.policy.claimWait))")
        }
    }

    private func list(_ page: URL) -> String {
        struct List: Encodable {
            let v = 1
            let a = "list"
            let list: [PrefetchListing]
        }
        return (try? JSONEncoder().encode(List(list: answers.listing(on: page)))).map {
            String(decoding: $0, as: UTF8.self)
        }
            ?? #"{"v":1,"a":"list","list":[]}"#
    }

    static func refusal(_ why: PrefetchMessageRefusal) -> String { #"{"v":1,"a":"refused","why":"\#(why.rawValue)"}"# }

    static func miss(more: Bool) -> String { #"{"v":1,"a":"miss","more":\#(more)}"# }
}

/// Gathers a claimed prefetch's response whole (a reply is sent once), and reports once how it ended.
final class PrefetchAnswerCollector: Sendable {
    enum Outcome: Sendable {
        case whole(SchemeResponse, Data)
        case gaveUp(String)
    }

    private struct State {
        var head: SchemeResponse?
        var body = Data()
        var done = false
        var entry: PrefetchEntry?
    }

    private let state = Mutex(State())
    private let limit: Int
    private let done: @Sendable (Outcome) -> Void

    init(limit: Int, done: @escaping @Sendable (Outcome) -> Void) {
        self.limit = limit
        self.done = done
    }

    func attach(_ entry: PrefetchEntry) {
        let ended = state.withLock { state -> Bool in
            state.entry = entry
            return state.done
        }
        if ended { entry.cancelByPage() }
    }

    func receive(_ event: NetworkFetchEvent) {
        enum Next { case none, finish(Outcome), tooLarge }
        let next = state.withLock { state -> Next in
            guard !state.done else { return .none }
            switch event {
            case .response(let head): state.head = head
            case .data(let data):
                state.body.append(data)
                if state.body.count > limit {
                    state.body = Data()
                    return .tooLarge
                }
            case .finished:
                guard let head = state.head else { return .finish(.gaveUp("no response head")) }
                return .finish(.whole(head, state.body))
            case .failed(let why): return .finish(.gaveUp("failed: \(why)"))
            }
            return .none
        }
        switch next {
        case .none: break
        case .finish(let outcome): finish(outcome)
        case .tooLarge:
            finish(.gaveUp("over \(limit) bytes, PrefetchPolicy.maximumResponseBytes"))
            state.withLock { $0.entry }?.cancelByPage()
        }
    }

    /// Ends the wait with a miss (the page fetches itself); the prefetch, if still running, is cancelled.
    func give(up why: String) {
        guard finish(.gaveUp(why)) else { return }
        state.withLock { $0.entry }?.cancelByPage()
    }

    @discardableResult
    private func finish(_ outcome: Outcome) -> Bool {
        let first = state.withLock { state -> Bool in
            defer { state.done = true }
            return !state.done
        }
        if first { done(outcome) }
        return first
    }
}

/// Answers the page on the engine's actor (where a reply must be settled: WKWebView's main thread), once the
/// response's cookie changes are in the engine's store.
@EngineActor
final class PrefetchReplyCourier {
    private weak var engine: (any WebEngine)?
    private let prefetcher: FirstScreenPrefetcher
    private let logger = Logger(label: "hybrid.prefetch")

    init(engine: any WebEngine, prefetcher: FirstScreenPrefetcher) {
        self.engine = engine
        self.prefetcher = prefetcher
    }

    /// Resolves `reply` on the engine's actor.
    func settle(_ reply: any ScriptMessageReply, json: String) { reply.resolve(json: json) }

    /// Whether the engine would send `url` the cookies the jar would (as name=value pairs); false, with a notice,
    /// when they differ: a page changed its cookies and the jar has not heard of it yet, or the jar and the engine's
    /// store are not kept in step (then no request is ever answered: keep them in step with EngineCookieSync).
    func engineSendsWhatTheJarSends(_ jar: CookieJar, to url: URL, page: URL) async -> Bool {
        guard let engine else { return false }
        let fromEngine: Set<String>
        do throws(EngineError) {
            fromEngine = Set(try await engine.cookieStore.cookies(for: url).map { "\($0.name)=\($0.value)" })
        } catch {
            logger.warning(
                "the engine's cookie store could not be read; the network page's request goes to the network",
                metadata: ["page": "\(page.absoluteString)", "error": "\(error)"])
            return false
        }
        let header = JarCookieHandler(jar: jar).cookieHeader(
            for: url, firstParty: nil, method: "GET", includeHTTPOnly: true)
        let fromJar = Set(
            (header ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        guard fromEngine == fromJar else {
            prefetcher.metrics.count(.miss)
            logger.notice(
                "prefetch not used: the engine would send other cookies than the jar (the page changed them, or the jar and the engine's store are not kept in step: EngineCookieSync)",
                metadata: ["page": "\(page.absoluteString)", "url": "\(url.absoluteString)"])
            return false
        }
        return true
    }

    func deliver(
        _ outcome: PrefetchAnswerCollector.Outcome, changes: JarChangesPush?, page: URL, url: URL,
        to reply: any ScriptMessageReply
    ) async {
        let more = { !self.prefetcher.pending(for: page).isEmpty }
        switch outcome {
        case .gaveUp(let why):
            prefetcher.metrics.count(.fallback)
            logger.notice(
                "prefetch given up while the network page waited; its request goes to the network",
                metadata: ["page": "\(page.absoluteString)", "why": "\(why)"])
            reply.resolve(json: PrefetchMessageAnswers.miss(more: more()))
        case .whole(let head, let body):
            if let changes, let jar = prefetcher.jar {
                guard let engine else { return reply.resolve(json: PrefetchMessageAnswers.miss(more: false)) }
                do throws(EngineError) {
                    try await changes.push(jar, to: engine.cookieStore)
                } catch {
                    prefetcher.metrics.count(.fallback)
                    logger.warning(
                        "the engine's cookie store refused a prefetched response's cookies; the page's request goes to the network",
                        metadata: ["page": "\(page.absoluteString)", "error": "\(error)"])
                    return reply.resolve(json: PrefetchMessageAnswers.miss(more: more()))
                }
            }
            reply.resolve(json: Self.hit(head, body: body, url: url, more: more()))
        }
    }

    /// The page's answer: what a same-origin `fetch` would have read from the network. `Set-Cookie` is left out
    /// (a page never reads it); the body travels as text when it is UTF-8 (decoded and re-encoded losslessly:
    /// checked), else as base64 (a third larger, decoded once in the page).
    static func hit(_ head: SchemeResponse, body: Data, url: URL, more: Bool) -> String {
        struct Hit: Encodable {
            let v = 1
            let a = "hit"
            let s: Int
            let st: String
            let h: [[String]]
            let u: String
            let r: Bool
            let b: String
            let e: String
            let more: Bool
        }
        var shown = head.headers.filter { !["set-cookie", "set-cookie2"].contains($0.key.lowercased()) }
        // The network layer keeps the length apart (it drops it for an encoded body it decoded: then the page
        // reads neither the encoding nor the length, as the body it gets is not the encoded one).
        if let length = head.expectedLength, !shown.keys.contains(where: { $0.lowercased() == "content-length" }) {
            shown["Content-Length"] = String(length)
        }
        let headers = shown.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { [$0.key, $0.value] }
        let text = String(decoding: body, as: UTF8.self)
        let isText = text.utf8.elementsEqual(body)
        let hit = Hit(
            s: head.statusCode, st: head.reasonPhrase ?? HTTPReasonPhrase.standard(head.statusCode), h: headers,
            u: (head.redirection?.url ?? url).absoluteString, r: head.redirection != nil,
            b: isText ? text : body.base64EncodedString(), e: isText ? "text" : "base64", more: more)
        return (try? JSONEncoder().encode(hit)).map { String(decoding: $0, as: UTF8.self) }
            ?? PrefetchMessageAnswers.miss(more: more)
    }
}

/// The reason phrases an HTTP/1.1 server sends (RFC 9110), for a response whose network layer did not keep its
/// own (URLSession): what the engine's own `fetch` would read as `statusText` from such a server.
enum HTTPReasonPhrase {
    static func standard(_ code: Int) -> String {
        switch code {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 205: "Reset Content"
        case 206: "Partial Content"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}
