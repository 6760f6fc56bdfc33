import Foundation
import HybridKit
import NIOCore
import NIOHTTP1

/// One connection to the body channel: preflights, uploads and proxy requests (``BodyChannelProxy``: the body goes
/// in, the proxied response comes back on the same exchange), one at a time, on the connection's event loop.
///
/// Until a request's head has opened an upload (and again between requests), the connection waits under the head
/// deadline and the gate may drop it for a newcomer; an upload is under the upload deadline and kept.
final class BodyChannelConnection: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case idle
        /// An answered preflight or refused head whose (empty or unread) rest is still to come.
        case answered
        case uploading(BodyChannelUpload, origin: String, keepAlive: Bool, deadline: Scheduled<Void>)
        /// A proxy request: its body arriving (`upload` until its last byte), its answer going out as the proxy
        /// reports it. Kept by the gate like an upload.
        case proxying(Proxying)
        case closing
    }

    private struct Proxying {
        let exchange: BodyChannelProxy
        /// nil once every byte of the body is in.
        var upload: BodyChannelUpload?
        let keepAlive: Bool
        /// Cancelled once the body is in; the proxy's own timeout bounds the rest.
        let deadline: Scheduled<Void>
        var headSent = false
        /// The answer's `Content-Length`, when the proxy announced one, and the body bytes written so far.
        var declared: Int?
        var written = 0
        var answered = false
        /// The answer's last write, once sent.
        var lastWrite: EventLoopFuture<Void>?
    }

    private let routes: BodyChannelRoutes
    private let port: Int
    private let uploadTimeout: Duration
    private let headTimeout: Duration
    private let gate: BodyChannelGate
    private let slot: BodyChannelGate.Slot
    private var state = State.idle
    /// Runs while the connection waits for a request head or reads a preflight; cancelled once an upload opens.
    private var headDeadline: Scheduled<Void>?

    /// The event the gate sends a connection it drops to make room.
    struct Evicted: Sendable {}

    init(
        routes: BodyChannelRoutes, port: Int, uploadTimeout: Duration, headTimeout: Duration, gate: BodyChannelGate,
        slot: BodyChannelGate.Slot
    ) {
        self.routes = routes
        self.port = port
        self.uploadTimeout = uploadTimeout
        self.headTimeout = headTimeout
        self.gate = gate
        self.slot = slot
    }

    func handlerAdded(context: ChannelHandlerContext) {
        awaitHead(context: context, again: false)
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        // Dropped for a newcomer before it had a channel the gate could close: answered and closed now.
        if !gate.attach(slot, context.channel) { refuse(.channelBusy(connections: gate.capacity), context) }
    }

    /// The idle timeout alone does not bound a head: a sender dripping a byte every few seconds is never idle.
    private func awaitHead(context: ChannelHandlerContext, again: Bool = true) {
        headDeadline?.cancel()
        if again { gate.waiting(slot) }
        let seconds = Int(headTimeout.components.seconds)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        headDeadline = context.eventLoop.scheduleTask(in: TimeAmount(headTimeout)) {
            let (connection, context) = bound.value
            switch connection.state {
            case .idle where again:
                // Between requests a client may be idle, not hostile (the engine keeps connections): closed
                // without an answer it could take for its next request's, as the idle timeout does.
                connection.state = .closing
                context.close(promise: nil)
            case .idle, .answered:
                connection.gate.headTimedOut(seconds: seconds)
                connection.refuse(.headTimedOut(seconds: seconds), context)
            case .uploading, .proxying, .closing:
                break
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): received(head, context: context)
        case .body(let bytes): received(bytes, context: context)
        case .end: ended(context: context)
        }
    }

    private func received(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard case .idle = state else { return refuse(.notFound(method: "\(head.method)", path: head.uri), context) }
        if let malformed = Self.malformation(of: head) { return refuse(.malformedHead(malformed), context) }
        let host = head.headers.first(name: "Host") ?? ""
        guard Self.loopbackHosts(port: port).contains(host.lowercased()) else {
            return refuse(.foreignHost(host), context)
        }
        let request = BodyChannelRoutes.Request(
            method: head.method.rawValue, path: head.uri, origin: head.headers.first(name: "Origin"),
            key: head.headers.first(name: BodyChannelRoutes.keyHeader),
            bodyID: head.headers.first(name: BodyChannelRoutes.bodyHeader),
            contentLength: head.headers.contains(name: "Transfer-Encoding")
                ? nil : head.headers.first(name: "Content-Length").flatMap { Int($0) },
            descriptor: head.headers.first(name: BodyChannelRoutes.descriptorHeader))
        if head.method == .OPTIONS {
            guard let cors = routes.preflight(request) else {
                return refuse(.notFound(method: "OPTIONS", path: head.uri), context)
            }
            state = .answered
            respond(204, headers: cors, body: nil, keepAlive: head.isKeepAlive, context: context)
            return
        }
        // The gate may have dropped this connection for a newcomer while its head arrived: nothing is opened then.
        guard gate.busy(slot) else { return refuse(.channelBusy(connections: gate.capacity), context) }
        headDeadline?.cancel()
        if request.path == BodyChannelRoutes.proxyPath { return openProxy(request, head: head, context: context) }
        do {
            let upload = try routes.open(request)
            let origin = request.origin ?? ""
            let seconds = Int(uploadTimeout.components.seconds)
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let deadline = context.eventLoop.scheduleTask(in: TimeAmount(uploadTimeout)) {
                let (connection, context) = bound.value
                connection.fail(.timedOut(seconds: seconds), context: context)
            }
            state = .uploading(upload, origin: origin, keepAlive: head.isKeepAlive, deadline: deadline)
            if upload.expected == 0 { ended(context: context) }
        } catch {
            refuse(error, context)
        }
    }

    // MARK: Proxy requests

    private func openProxy(_ request: BodyChannelRoutes.Request, head: HTTPRequestHead, context: ChannelHandlerContext)
    {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        let exchange: BodyChannelProxy
        do {
            // Events come from the proxy's threads, in order; the loop runs them in the order they were handed over.
            exchange = try routes.openProxy(request) { event in
                loop.execute {
                    let (connection, context) = bound.value
                    connection.proxyEvent(event, context: context)
                }
            }
        } catch {
            return refuse(error, context)
        }
        let seconds = Int(uploadTimeout.components.seconds)
        let deadline = context.eventLoop.scheduleTask(in: TimeAmount(uploadTimeout)) {
            let (connection, context) = bound.value
            connection.failProxy(.timedOut(seconds: seconds), context: context)
        }
        state = .proxying(
            Proxying(exchange: exchange, upload: exchange.upload, keepAlive: head.isKeepAlive, deadline: deadline))
        if exchange.upload.expected == 0 { proxyBodyEnded(context: context) }
    }

    private func proxyBytes(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard case .proxying(var proxying) = state, var upload = proxying.upload else { return }
        // Answered already, or about to be (a refusal, or a server that answered early: the exchange ended and let
        // go of the body): the rest of the body is read and dropped, so the connection stays in step.
        if proxying.answered || proxying.exchange.isEnded { return }
        if let error = Self.write(bytes, into: &upload) {
            // The exchange may have ended between the check above and the write: its answer is on its way.
            if proxying.exchange.isEnded { return }
            failProxy(error, context: context)
        } else {
            proxying.upload = upload
            state = .proxying(proxying)
        }
    }

    /// Writes `bytes` into `upload`; the refusal when the upload must stop.
    private static func write(_ bytes: ByteBuffer, into upload: inout BodyChannelUpload) -> BodyChannelRefusal? {
        bytes.withUnsafeReadableBytes { pointer in
            do throws(BodyChannelRefusal) {
                try upload.write(pointer)
                return nil
            } catch {
                return error
            }
        }
    }

    private func proxyBodyEnded(context: ChannelHandlerContext) {
        guard case .proxying(var proxying) = state, let upload = proxying.upload else { return }
        if !proxying.answered && !proxying.exchange.isEnded {
            do {
                try upload.finish()
            } catch {
                return failProxy(error, context: context)
            }
        }
        proxying.deadline.cancel()
        proxying.upload = nil
        state = .proxying(proxying)
        if proxying.answered { proxyDone(proxying, context: context) }
    }

    private func proxyEvent(_ event: BodyChannelProxy.Event, context: ChannelHandlerContext) {
        guard case .proxying(var proxying) = state else { return }
        switch event {
        case .head(let status, let headers):
            var fields = HTTPHeaders(headers)
            // Kept alive only when the whole request will have been read by the answer's end.
            fields.add(name: "Connection", value: proxying.keepAlive ? "keep-alive" : "close")
            let head = HTTPResponseHead(
                version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: fields)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            proxying.headSent = true
            proxying.declared = fields.first(name: "Content-Length").flatMap { Int($0) }
            state = .proxying(proxying)
        case .data(let data):
            proxying.written += data.count
            // More than the announced length would run into the next answer on a kept connection.
            if let declared = proxying.declared, proxying.written > declared { return abortProxy(proxying, context) }
            state = .proxying(proxying)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: data)))), promise: nil)
        case .end:
            // Short of the announced length: the engine would wait for the rest; the cut tells the page instead.
            if let declared = proxying.declared, proxying.written != declared { return abortProxy(proxying, context) }
            let done = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: done)
            proxying.answered = true
            proxying.lastWrite = done.futureResult
            state = .proxying(proxying)
            if proxying.upload == nil {
                proxyDone(proxying, context: context)
            } else if !proxying.headSent {
                // Cannot happen (an answer has a head), but never leave a half-read request on a kept connection.
                closeAfter(done.futureResult, context: context)
            }
        // An answer before the whole body (a server may answer early): the body still streams to the proxy
        // (it may need it for a redirect) until it ends, then the connection is free again.
        case .abort:
            abortProxy(proxying, context)
        }
    }

    /// The answer had begun and cannot finish: the page sees its body fail, as with a cut connection.
    private func abortProxy(_ proxying: Proxying, _ context: ChannelHandlerContext) {
        proxying.upload?.abandon()
        proxying.deadline.cancel()
        proxying.exchange.cancel()
        state = .closing
        // The head (written, maybe not yet flushed) goes first, so the page sees a cut body, not a refused request.
        context.flush()
        context.close(promise: nil)
    }

    /// Answer and body both done: the connection takes its next request (or closes, if asked).
    private func proxyDone(_ proxying: Proxying, context: ChannelHandlerContext) {
        proxying.deadline.cancel()
        guard proxying.keepAlive else {
            state = .closing
            if let written = proxying.lastWrite {
                closeAfter(written, context: context)
            } else {
                context.close(promise: nil)
            }
            return
        }
        state = .idle
        awaitHead(context: context)
    }

    private func closeAfter(_ written: EventLoopFuture<Void>, context: ChannelHandlerContext) {
        state = .closing
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.whenComplete { _ in bound.value.close(promise: nil) }
    }

    /// The body stopped (cut, too slow, refused by the store): the proxy stops and the body goes. Before the answer's
    /// head the page gets a readable error (it must not send the request again: upstream may have begun); after it,
    /// the connection closes and the page's body stream fails.
    private func failProxy(_ refusal: BodyChannelRefusal, context: ChannelHandlerContext) {
        guard case .proxying(let proxying) = state else { return }
        proxying.deadline.cancel()
        proxying.upload?.abandon()
        proxying.exchange.cancel()
        if proxying.headSent || proxying.answered {
            state = .closing
            context.close(promise: nil)
            return
        }
        var last: EventLoopFuture<Void>?
        for event in BodyChannelProxy.refusal(refusal.status, refusal.description, origin: proxying.exchange.origin) {
            switch event {
            case .head(let status, let headers):
                var fields = HTTPHeaders(headers)
                fields.add(name: "Connection", value: "close")
                context.write(
                    wrapOutboundOut(
                        .head(
                            HTTPResponseHead(
                                version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: fields))),
                    promise: nil)
            case .data(let data):
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: data)))), promise: nil)
            case .end:
                let done = context.eventLoop.makePromise(of: Void.self)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: done)
                last = done.futureResult
            case .abort:
                break
            }
        }
        if let last { closeAfter(last, context: context) } else { state = .closing; context.close(promise: nil) }
    }

    private func received(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        if case .proxying = state { return proxyBytes(bytes, context: context) }
        guard case .uploading(var upload, let origin, let keepAlive, let deadline) = state else { return }
        if let error = Self.write(bytes, into: &upload) {
            deadline.cancel()
            state = .idle
            refuse(error, context)
        } else {
            state = .uploading(upload, origin: origin, keepAlive: keepAlive, deadline: deadline)
        }
    }

    private func ended(context: ChannelHandlerContext) {
        switch state {
        case .proxying:
            proxyBodyEnded(context: context)
        case .uploading(let upload, let origin, let keepAlive, let deadline):
            deadline.cancel()
            do {
                try upload.finish()
            } catch {
                state = .idle
                return refuse(error, context)
            }
            state = .idle
            let body = Data("{\"received\":\(upload.received)}".utf8)
            respond(
                200, headers: BodyChannelRoutes.corsHeaders(for: origin) + [("Content-Type", "application/json")],
                body: body, keepAlive: keepAlive, context: context)
            if case .idle = state { awaitHead(context: context) }
        case .answered:
            // A preflight is no work done: the head deadline it came under keeps running (a client sending only
            // preflights would otherwise hold a slot for ever), and the gate keeps counting the wait from its start.
            state = .idle
        case .idle, .closing:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is Evicted {
            // Only a connection waiting for a head is dropped (the gate keeps uploads), so nothing is stored here.
            if case .uploading = state { return }
            if case .proxying = state { return }
            return refuse(.channelBusy(connections: gate.capacity), context)
        }
        guard let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read else {
            return context.fireUserInboundEventTriggered(event)
        }
        if case .uploading = state {
            fail(.timedOut(seconds: 0), context: context)
        } else if case .proxying(let proxying) = state {
            // Silence while the body arrives is a stalled upload; once it is in, the page waits for the answer,
            // which the proxy's own timeout bounds.
            if proxying.upload != nil { failProxy(.timedOut(seconds: 0), context: context) }
        } else {
            state = .closing
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        abandonUpload()
        headDeadline?.cancel()
        gate.remove(slot)
        state = .closing
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        abandonUpload()
        state = .closing
        context.close(promise: nil)
    }

    /// A timeout: the body goes and the connection closes (the sender is not waiting for an answer it could use).
    private func fail(_ refusal: BodyChannelRefusal, context: ChannelHandlerContext) {
        abandonUpload()
        refuse(refusal, context)
    }

    private func abandonUpload() {
        if case .proxying(let proxying) = state {
            proxying.deadline.cancel()
            proxying.upload?.abandon()
            proxying.exchange.cancel()
            state = .idle
            return
        }
        guard case .uploading(let upload, _, _, let deadline) = state else { return }
        deadline.cancel()
        upload.abandon()
        state = .idle
    }

    /// Answers with the refusal and closes the connection: whatever body follows is never read. No CORS headers:
    /// the page's hooks see a network error and send the body in slices, where the scheme handler applies the same
    /// rules with a readable answer.
    private func refuse(_ refusal: BodyChannelRefusal, _ context: ChannelHandlerContext) {
        if case .closing = state { return }
        // A head pipelined behind a proxy request's answer: that exchange ends with the connection. Once the answer's
        // head is out, nothing more is written (a second response head inside an answer would garble it, and NIO's
        // server pipeline traps on one): the connection just closes.
        var answerUnderWay = false
        if case .proxying(let proxying) = state {
            answerUnderWay = proxying.headSent
            abandonUpload()
        }
        state = .closing
        headDeadline?.cancel()
        if answerUnderWay { return context.close(promise: nil) }
        let body = Data(#"{"error":\#(Self.quoted(refusal.description))}"#.utf8)
        respond(
            refusal.status, headers: [("Content-Type", "application/json")], body: body, keepAlive: false,
            context: context)
    }

    private func respond(
        _ status: Int, headers extra: [(String, String)], body: Data?, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders(extra)
        headers.add(name: "Content-Length", value: "\(body?.count ?? 0)")
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body, !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        }
        let done = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: done)
        // A sender that does not read its answers (requests pipelined by the thousand) would have them pile up in
        // memory: past the write buffer's high-water mark the connection closes once they are written.
        if !keepAlive || !context.channel.isWritable {
            state = .closing
            headDeadline?.cancel()
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            done.futureResult.whenComplete { _ in bound.value.close(promise: nil) }
        }
    }

    /// Headers the channel decides on must come once: with two, which one a proxy or the engine meant is a guess
    /// (RFC 9112 §3.2 requires a 400 for a missing or repeated `Host`).
    static func malformation(of head: HTTPRequestHead) -> String? {
        let headers = head.headers
        // A request to switch protocols makes NIO's HTTP decoder stop parsing and keep every byte that follows for
        // an upgrader, which this server has not: refused before the buffer can grow.
        if head.method == .CONNECT { return "CONNECT: the body channel is no proxy for other connections" }
        if headers.contains(name: "Upgrade") { return "an Upgrade header: the body channel speaks HTTP/1.1 only" }
        let once = [
            "Host", "Origin", "Content-Length", BodyChannelRoutes.keyHeader, BodyChannelRoutes.bodyHeader,
            BodyChannelRoutes.descriptorHeader,
        ]
        for name in once {
            let count = headers[name].count
            if name == "Host", count == 0 { return "no Host header: send exactly one (RFC 9112 §3.2)" }
            if count > 1 { return "\(count) \(name) headers: send exactly one" }
        }
        return nil
    }

    static func loopbackHosts(port: Int) -> Set<String> {
        ["127.0.0.1:\(port)", "[::1]:\(port)", "localhost:\(port)"]
    }

    private static func quoted(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
