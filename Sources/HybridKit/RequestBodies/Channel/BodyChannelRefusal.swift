/// Why the body channel refused a request or cut an upload. Nothing of a refused upload stays in the store.
public enum BodyChannelRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not `POST /body` or `POST /proxy` (or their preflights).
    case notFound(method: String, path: String)
    /// The `Host` header is not the loopback address the channel listens on (a DNS-rebinding page, say).
    case foreignHost(String)
    /// No `X-Hybrid-Body-Key`, or one no page of this channel holds.
    case unknownKey
    /// No `Origin`, or not the origin that reserved the body.
    case wrongOrigin(String?)
    /// Chunked or missing length: the size must be known before a byte is read.
    case lengthRequired
    /// The announced length is not the size the body was reserved with.
    case lengthMismatch(announced: Int, reserved: Int)
    /// The store refused (unknown id, already uploading, a chunk past the size).
    case store(BodyStoreError)
    /// The sender stopped sending, or took longer than the whole upload may.
    case timedOut(seconds: Int)
    /// The connection closed before the body was complete.
    case cut(received: Int, expected: Int)
    /// A head the channel will not guess at: no `Host` or two (RFC 9112 §3.2), or two of a header the routes decide
    /// on (`Origin`, `Content-Length`, the key or the body id).
    case malformedHead(String)
    /// The request's head (or a preflight's whole request) did not arrive within the head deadline.
    case headTimedOut(seconds: Int)
    /// Every connection slot holds an upload or a younger head: this one was dropped to make room, or not kept.
    case channelBusy(connections: Int)
    /// A proxy request from a view whose full proxy is off or missing.
    case proxyUnavailable
    /// A proxy request whose descriptor is missing, not valid, or names a stored body.
    case badDescriptor(String)
    /// A proxy request the view's hooks would not send: from a page that is not a full-proxy page, or naming a page
    /// of another origin as where it comes from.
    case proxyRefused(String)

    /// The HTTP status the channel answers with.
    public var status: Int {
        switch self {
        case .notFound: 404
        case .foreignHost: 421
        case .unknownKey, .wrongOrigin: 403
        case .lengthRequired: 411
        case .lengthMismatch: 400
        case .store(.bodyTooLarge), .store(.storeFull), .store(.tooManyBodies), .store(.originQuotaFull): 413
        case .store: 400
        case .timedOut: 408
        case .cut: 400
        case .malformedHead: 400
        case .headTimedOut: 408
        case .channelBusy: 503
        case .proxyUnavailable, .proxyRefused: 403
        case .badDescriptor: 400
        }
    }

    public var description: String {
        switch self {
        case .notFound(let method, let path):
            "\(method) \(path) is not a body upload: the body channel only takes POST /body and POST /proxy"
        case .foreignHost(let host):
            "the body channel answers only requests to its loopback address, not to '\(host)'"
        case .unknownKey: "the body upload has no valid X-Hybrid-Body-Key: only a page's request hooks may send bodies"
        case .wrongOrigin(let origin):
            "the body upload comes from \(origin.map { "'\($0)'" } ?? "no origin"), not the origin that reserved the body"
        case .lengthRequired: "the body upload needs a Content-Length (chunked uploads are refused)"
        case .lengthMismatch(let announced, let reserved):
            "the body upload announces \(announced) bytes but the body was reserved with \(reserved)"
        case .store(let error): error.description
        case .timedOut(let seconds): "the body upload took too long (more than \(seconds) s) and was cut"
        case .cut(let received, let expected):
            "the body upload ended after \(received) of \(expected) bytes"
        case .malformedHead(let why):
            "the body channel refused a malformed request head: \(why)"
        case .headTimedOut(let seconds):
            "the request head did not arrive within \(seconds) s: the body channel closed the connection"
        case .channelBusy(let connections):
            "the body channel holds its most connections (\(connections)) and closed this one; the hooks send the "
                + "body in slices instead (raise LoopbackBodyChannel.Limits.maxConnections if real uploads hit this)"
        case .proxyUnavailable: InterceptingSchemeHandler.proxyUnavailable
        case .badDescriptor(let why): "the proxy request's descriptor is not valid: \(why)"
        case .proxyRefused(let why): why
        }
    }
}
