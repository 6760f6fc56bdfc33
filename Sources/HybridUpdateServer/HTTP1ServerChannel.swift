import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1.1 child channel with two additions for RFC 9112:
/// - `HostHeaderCheck` between NIO's request decoder and Hummingbird's codec, where the HTTP version is still
///   known (HTTP/1.0 did not require `Host`; Hummingbird's request type no longer says which version it was);
/// - the header-read deadline, which is Hummingbird's `idleTimeout`: see `UpdateServer.start`.
struct HTTP1ServerChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let inner: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Runs on the channel's event loop before the first read, like the rest of the pipeline's setup.
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(HostHeaderCheck(), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// RFC 9112 §3.2: "A server MUST respond with a 400 (Bad Request) status code to any HTTP/1.1 request message
/// that lacks a Host header field and to any request message that contains more than one Host header field
/// line or a Host header field with an invalid field value."
///
/// The request is not answered here: the connection may still be writing the answer to a pipelined request
/// before it. The head goes on marked (`rejectionHeader`, stripped from what clients send) and with
/// `Connection: close`, so the router's `RejectMarkedRequests` answers 400 in turn and Hummingbird then closes
/// the connection; whatever the client sent after a rejected request is dropped unread.
final class HostHeaderCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    static let rejectionHeader = "X-Hybrid-Rejected"

    private enum State {
        case reading
        case readingRejected
        case discarding
    }
    private var state = State.reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch (state, part) {
        case (.discarding, _):
            return
        case (.readingRejected, .end):
            state = .discarding
            context.fireChannelRead(data)
        case (.readingRejected, _):
            context.fireChannelRead(data)
        case (.reading, .head(var head)):
            head.headers.remove(name: Self.rejectionHeader)
            if let problem = Self.problem(with: head) {
                state = .readingRejected
                head.headers.replaceOrAdd(name: Self.rejectionHeader, value: problem)
                head.headers.replaceOrAdd(name: "Connection", value: "close")
            } else if head.version.major == 1, head.version.minor == 0, !head.isKeepAlive {
                // HTTP/1.0 without keep-alive ends after one answer (RFC 9112 §9.3); Hummingbird only closes on
                // the request's own `Connection: close`.
                head.headers.replaceOrAdd(name: "Connection", value: "close")
            }
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case (.reading, _):
            context.fireChannelRead(data)
        }
    }

    /// Why the head is a 400, or nil.
    static func problem(with head: HTTPRequestHead) -> String? {
        let hosts = head.headers["Host"]
        if hosts.count > 1 { return "more than one Host header field" }
        guard let host = hosts.first else {
            let needsHost = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
            return needsHost ? "no Host header field in an HTTP/1.1 request" : nil
        }
        return isValidHost(host) ? nil : "an invalid Host header field"
    }

    /// `uri-host [ ":" port ]` (RFC 3986): reg-name, IPv4 or a bracketed IP literal; empty is allowed (§7.2).
    static func isValidHost(_ value: String) -> Bool {
        value.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": return true
            case "-", ".", "_", "~", "%", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", ":", "[", "]":
                return true
            default: return false
            }
        }
    }
}
