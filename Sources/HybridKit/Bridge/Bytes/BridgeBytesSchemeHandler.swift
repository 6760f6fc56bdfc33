import Foundation
import Synchronization

/// The bridge's own custom scheme (``BridgeConfiguration/bytesScheme``), the route bytes take between a page and
/// native without JSON: `GET <scheme>://bridge/d/<id>` hands out bytes native answered with (once, to the origin
/// they are for), `POST <scheme>://bridge/u/<id>` takes the bytes of a binary call native admitted (once, from
/// the origin that made it). Who may ask is the engine's `Origin` header, which a page cannot set; what is asked
/// for is a 128-bit id only the runtime of the right frame was told. See the threat model in
/// <doc:BridgeGuarantees>. Called on the engine's actor.
nonisolated final class BridgeBytesSchemeHandler: SchemeHandler {
    /// The host of every URL on the scheme.
    nonisolated static let host = "bridge"

    private let link: BridgeLink
    let redemptions: ByteRedemptions
    /// Uploads native admitted and waits for: id → the origin that may send it. Read when the engine asks whether
    /// to read a body, before the bridge hears of the request.
    private let expected = Mutex<[String: String]>([:])
    let maximumBodySize: Int

    init(link: BridgeLink, redemptions: ByteRedemptions, limits: BridgeLimits) {
        self.link = link
        self.redemptions = redemptions
        self.maximumBodySize = limits.maxBinaryBytes
    }

    /// A request on the scheme, read from its URL: nil for anything but `/d/<id>` and `/u/<id>` on the bridge host.
    enum Route: Equatable {
        case download(String)
        case upload(String)

        init?(_ url: URL) {
            guard url.host == BridgeBytesSchemeHandler.host, url.query == nil else { return nil }
            let parts = url.path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].isEmpty, ByteRedemptions.isWellFormedID(parts[2]) else { return nil }
            switch parts[1] {
            case "d": self = .download(String(parts[2]))
            case "u": self = .upload(String(parts[2]))
            default: return nil
            }
        }
    }

    func expectUpload(_ id: String, from origin: String) {
        expected.withLock { $0[id] = origin }
    }

    /// The upload is no longer awaited (it arrived, expired, or its call went away).
    func forgetUpload(_ id: String) {
        _ = expected.withLock { $0.removeValue(forKey: id) }
    }

    var awaitedUploads: Int { expected.withLock { $0.count } }

    /// Only an awaited upload's body, from its origin, is read: anything else may hold Blob data, which WebKitGTK
    /// 2.50 crashes the app reading (see ``SchemeHandler/mayReadBody(of:)``), and is nothing the bridge asked for.
    func mayReadBody(of request: EngineRequest) -> Bool {
        guard request.method == "POST", case .upload(let id)? = Route(request.url),
            let origin = request.header("Origin")?.lowercased()
        else { return false }
        return expected.withLock { $0[id] } == origin
    }

    @EngineActor func start(_ task: any SchemeTask) {
        let request = task.request
        switch (request.method, Route(request.url)) {
        case ("GET", .download(let id)?): download(id, task)
        case ("POST", .upload(let id)?):
            guard let bridge = link.bridge else { return Self.refuse(task, 410, origin: nil, "the bridge is closed") }
            bridge.receiveUpload(id, task: task)
        default:
            // Preflights too: the runtime's requests never need one, and no other caller gets CORS headers.
            Self.refuse(task, 404, origin: nil, "not a route of the bridge's bytes")
        }
    }

    @EngineActor func stop(_ task: any SchemeTask) {}

    @EngineActor private func download(_ id: String, _ task: any SchemeTask) {
        let origin = task.request.header("Origin")
        switch redemptions.redeem(id, origin: origin) {
        case .success(let data):
            task.respond(
                status: 200,
                headers: Self.headers(origin: origin, type: "application/octet-stream"), body: data)
        case .failure:
            // Unknown, spent, expired and another origin's bytes answer alike.
            Self.refuse(task, 404, origin: origin, "no such bytes for this origin (spent, expired or never sent)")
        }
    }

    static func headers(origin: String?, type: String) -> [String: String] {
        var headers = ["Content-Type": type, "Cache-Control": "no-store"]
        if let origin, origin != "null" { headers["Access-Control-Allow-Origin"] = origin }
        return headers
    }

    /// Answers with a typed error the runtime reads (`{"code":…,"message":…}`); `origin` gets CORS headers so its
    /// runtime can read why, and nothing else does.
    @EngineActor static func refuse(_ task: any SchemeTask, _ status: Int, origin: String?, _ message: String) {
        let code = status == 413 ? "bad_arguments" : "denied"
        let body = #"{"code":"\#(code)","message":\#(OutboundMessage.quote(message))}"#
        task.respond(status: status, headers: headers(origin: origin, type: "application/json"), body: Data(body.utf8))
    }
}

/// The bridge a handler made before the bridge itself answers to: set once, at the end of the bridge's init, and
/// weak, so an engine holding the handler never keeps the bridge alive.
final class BridgeLink: Sendable {
    private struct Weak { weak var bridge: BridgeEngine? }
    private let storage = Mutex(Weak())

    var bridge: BridgeEngine? {
        get { storage.withLock { $0.bridge } }
        set { storage.withLock { $0.bridge = newValue } }
    }
}
