import Foundation

/// A message the network-page prefetch runtime (PrefetchRuntime/network.js) posts to ``PrefetchMessageAnswers``:
/// the page's `fetch` to answer, or a read of what was prefetched, or its first-screen mark.
///
/// Untrusted: any script of the page can post anything to the handler, and frames can reach it too. Who sent it is
/// never read from here (the engine's frame says that); this is only what is asked, read strictly.
struct PrefetchMessage: Sendable, Equatable {
    enum Kind: String, Sendable {
        case fetch
        case list
        case firstScreen = "first-screen"
    }

    var kind: Kind
    var token: String
    /// For `fetch`: the request as the page's `Request` reads it.
    var request: EngineRequest?
    var credentials: PrefetchRequest.Credentials?

    /// Bytes a message may have: a request line and its headers, never a body.
    static let maximumBytes = 64 * 1024
    static let maximumHeaders = 64
    static let maximumURLBytes = 8 * 1024
    static let maximumHeaderValueBytes = 8 * 1024

    /// Reads `text`, or says why not.
    static func parse(_ text: String) throws(PrefetchMessageRefusal) -> PrefetchMessage {
        guard text.utf8.count <= maximumBytes else { throw .tooLarge }
        struct Wire: Decodable {
            var v: Int
            var k: String
            var t: String
            var m: String?
            var u: String?
            var c: String?
            var h: [[String]]?
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(text.utf8))
        } catch {
            throw .malformed
        }
        guard wire.v == 1, let kind = Kind(rawValue: wire.k), wire.t.utf8.count <= 64 else { throw .malformed }
        guard kind == .fetch else {
            guard wire.m == nil, wire.u == nil, wire.c == nil, wire.h == nil else { throw .malformed }
            return PrefetchMessage(kind: kind, token: wire.t, request: nil, credentials: nil)
        }
        guard let method = wire.m, method == "GET" || method == "HEAD", let text = wire.u,
            text.utf8.count <= maximumURLBytes, let url = URL(string: text), WebOrigin(url) != nil,
            url.user == nil, url.password == nil,
            let credentials = wire.c.flatMap(PrefetchRequest.Credentials.init(rawValue:)),
            let pairs = wire.h, pairs.count <= maximumHeaders
        else { throw .malformed }
        var request = EngineRequest(url: url, method: method)
        for pair in pairs {
            // A page's Headers hold tokens for names and values without CR, LF or NUL; anything else was forged.
            guard pair.count == 2, HTTPToken.isToken(pair[0]), pair[1].utf8.count <= maximumHeaderValueBytes,
                !pair[1].unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
            else { throw .malformed }
            request.headers.append((pair[0].lowercased(), pair[1]))
        }
        return PrefetchMessage(kind: kind, token: wire.t, request: request, credentials: credentials)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.token == rhs.token && lhs.credentials == rhs.credentials
            && lhs.request?.url == rhs.request?.url && lhs.request?.method == rhs.request?.method
            && (lhs.request?.headers ?? []).elementsEqual(rhs.request?.headers ?? []) {
                $0.name == $1.name && $0.value == $1.value
            }
    }
}

/// Why a message to the network-page prefetch handler got no answer from a prefetch: sent back to the page as
/// `{"v":1,"a":"refused","why":"<raw value>"}` (the page then fetches from the network), counted as a
/// ``HybridMetrics/prefetches`` `denied`, and logged.
enum PrefetchMessageRefusal: String, Error, Sendable, CaseIterable, CustomStringConvertible {
    /// The engine did not say which frame sent it (WebKitGTK without HybridKit's web-process extension).
    case unverifiedFrame = "unverified_frame"
    /// A frame other than the main frame sent it.
    case notMainFrame = "not_main_frame"
    /// The main frame's document is of another security origin than the prefetcher's.
    case otherOrigin = "other_origin"
    /// Not a string (the runtime always posts one).
    case notAString = "not_a_string"
    /// Over ``PrefetchMessage/maximumBytes``.
    case tooLarge = "too_large"
    /// Not the runtime's JSON: wrong fields, types, method, URL or headers.
    case malformed
    /// Not this view's runtime's token.
    case wrongToken = "wrong_token"
    /// A request for another origin than the page's.
    case otherOriginRequest = "other_origin_request"
    /// Posted without the reply channel: nothing can be answered.
    case noReply = "no_reply"

    var description: String {
        switch self {
        case .unverifiedFrame:
            "the engine does not say which frame sent the message; on WebKitGTK load HybridKit's web-process "
                + "extension (GTKRuntime does by default), or network pages' requests are never answered from prefetches"
        case .notMainFrame: "a frame other than the main frame asked"
        case .otherOrigin: "the main frame's document is of another origin than the prefetcher's"
        case .notAString: "the message is not a string"
        case .tooLarge: "the message is over \(PrefetchMessage.maximumBytes) bytes"
        case .malformed: "the message is not the prefetch runtime's"
        case .wrongToken: "the message does not carry this view's token"
        case .otherOriginRequest: "the request is for another origin than the page's"
        case .noReply: "the message was posted without the reply channel"
        }
    }
}
