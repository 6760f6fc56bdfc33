import Foundation
import HybridCookies

/// `document.cookie` for pages served through a custom scheme: a bridge module over the jar and the script that
/// replaces the page's `document.cookie` with it (CookieRuntime/document-cookie.js explains the page side).
///
/// WebKit keeps no cookies for a custom-scheme document (WebKitGTK 2.50: `document.cookie` reads "" and ignores
/// writes on a secure custom scheme; see DocumentCookieGTKTests), so without this a package page could not see
/// the cookies of the site it stands for. Pages the engine loads over http(s) keep the engine's own
/// `document.cookie`, which ``EngineCookieSync`` keeps in step with the jar.
///
/// Every call is checked against the frame's origin as the engine reports it (``CallContext/origin``, verified
/// only): the URL the page sends must be on that origin, and it is mapped to the http(s) URL it stands for with
/// `pageURL`. Writes follow the jar's `document.cookie` rules: no HttpOnly, nothing for another registrable
/// domain, no overwriting an HttpOnly cookie; reads never include HttpOnly cookies.
public final class DocumentCookieBridge: Sendable {
    public static let moduleName = "hybrid.cookies"
    /// The longest cookie string a page may write (the jar's own limits apply after).
    public static let maxWriteLength = 8192

    public let jar: CookieJar
    /// The custom scheme whose pages get the shim (lowercased).
    public let scheme: String
    private let pageURL: @Sendable (URL) -> URL?
    private let pollTimeout: Duration
    /// What each frame's copy holds: native responses wait on it (``CookieDeliveryGate``).
    public let delivery: DocumentCookieDelivery

    /// - Parameters:
    ///   - jar: the cookies `document.cookie` reads and writes.
    ///   - scheme: the custom scheme whose pages get the shim.
    ///   - pageURL: the http(s) URL a custom-scheme URL stands for (`OfflineURLMapping.packageURL(for:)`); nil
    ///     refuses the call.
    ///   - pollTimeout: how long a `read` waits for a change before answering anyway.
    public init(
        jar: CookieJar, scheme: String, pageURL: @escaping @Sendable (URL) -> URL?,
        pollTimeout: Duration = .seconds(25)
    ) {
        self.jar = jar
        self.scheme = scheme.lowercased()
        self.pageURL = pageURL
        self.pollTimeout = pollTimeout
        delivery = DocumentCookieDelivery(jar: jar)
    }

    /// Registers the module with `page`'s bridge and injects the shim; call before loading.
    @EngineActor public func install(on page: HybridPage) throws(DocumentCookieBridgeError) {
        page.bridge.modules.register(module)
        page.engine.addUserScript(try userScript())
    }

    // MARK: The module

    struct ReadArguments: Decodable, Sendable {
        let url: String
        /// The string the page holds; nil when it has none yet.
        let known: String?
        /// A token the document picked, so its reads are told from another frame's on the same origin.
        let document: String?
    }

    struct WriteArguments: Decodable, Sendable {
        let url: String
        let cookie: String
    }

    struct Answer: Encodable, Sendable {
        /// What `document.cookie` returns now.
        let cookie: String
        /// Only for writes: whether the jar took it, and why not.
        var accepted: Bool?
        var reason: String?
    }

    /// The bridge module: `read` (long poll) and `write`. Callable from any frame on the custom scheme; the
    /// origin check is per call.
    public var module: BridgeModule {
        let scheme = scheme
        return BridgeModule(
            Self.moduleName,
            access: BridgeAccess(
                origins: .matching { $0.lowercased().hasPrefix(scheme + "://") }, allowsSubframes: true),
            execution: .background
        ) { module in
            module.method("read", timeout: pollTimeout + .seconds(30)) { (args: ReadArguments, call) async throws in
                try await self.read(args, call)
            }
            module.method("write") { (args: WriteArguments, call) throws in
                try self.write(args, call)
            }
        }
    }

    func read(_ args: ReadArguments, _ call: CallContext) async throws(BridgeError) -> Answer {
        let url = try realURL(args.url, call)
        let frame = "\(call.origin) \(args.document?.prefix(64) ?? Substring(url.absoluteString))"
        delivery.pollStarted(frame, url: url, known: args.known, isMainFrame: call.isMainFrame)
        let deadline = ContinuousClock.now + pollTimeout
        while true {
            // Subscribed before reading, so a change between the two still wakes the wait.
            let changes = jar.changes(bufferingPolicy: .bufferingNewest(1))
            let current = jar.documentCookie(for: url)
            if Task.isCancelled {
                delivery.frameGone(frame)
                return Answer(cookie: current)
            }
            if current != args.known || ContinuousClock.now >= deadline {
                delivery.pollAnswered(frame, with: current)
                return Answer(cookie: current)
            }
            await Self.next(of: changes, until: deadline)
        }
    }

    func write(_ args: WriteArguments, _ call: CallContext) throws(BridgeError) -> Answer {
        let url = try realURL(args.url, call)
        guard args.cookie.utf8.count <= Self.maxWriteLength else {
            throw .badArguments("a cookie string is limited to \(Self.maxWriteLength) bytes")
        }
        let result = jar.setDocumentCookie(args.cookie, pageURL: url)
        var answer = Answer(cookie: jar.documentCookie(for: url))
        answer.accepted = result.isAccepted
        if case .rejected(let why) = result { answer.reason = "\(why)" }
        return answer
    }

    /// The http(s) URL of the calling frame: the page names its URL (for the path), the engine its origin.
    private func realURL(_ text: String, _ call: CallContext) throws(BridgeError) -> URL {
        guard call.originVerified else {
            throw .denied(
                "document.cookie needs the frame's origin from the engine; on WebKitGTK load HybridKit's web "
                    + "extension (libHybridWebExtension.so in the …_HybridKitGTK.resources directory beside the executable, "
                    + "or HYBRID_WEB_EXTENSION)")
        }
        guard let url = URL(string: text), url.scheme?.lowercased() == scheme, let origin = Self.origin(of: url)
        else { throw .badArguments("'\(text.prefix(200))' is not a \(scheme): URL") }
        guard origin == call.origin.lowercased() else {
            throw .denied("the page at \(call.origin) cannot use the cookies of \(origin)")
        }
        guard let real = pageURL(url) else {
            throw .denied("\(origin) does not stand for an http(s) site this app serves")
        }
        return real
    }

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    /// Waits for one change, the deadline, or cancellation (the page navigated), whichever comes first.
    private static func next(of changes: AsyncStream<CookieChange>, until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in changes { return }
            }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
        }
    }

    // MARK: The page side

    /// The shim, configured for this scheme and module, to inject at document start in all frames.
    public func userScript() throws(DocumentCookieBridgeError) -> UserScript {
        guard
            let url = PackageResources.url(
                forResource: "document-cookie", withExtension: "js", subdirectory: "CookieRuntime"),
            let body = try? String(contentsOf: url, encoding: .utf8)
        else { throw .missingResource("CookieRuntime/document-cookie.js") }
        struct Config: Encodable {
            let scheme: String
            let module: String
        }
        guard let data = try? JSONEncoder().encode(Config(scheme: scheme, module: Self.moduleName)) else {
            throw .missingResource("configuration")
        }
        let config = String(decoding: data, as: UTF8.self)
        return UserScript(
            source: "(function (config) {\n\(body)\n})(\(config));\n", injectionTime: .documentStart, allFrames: true)
    }
}

public enum DocumentCookieBridgeError: Error, Sendable, Equatable, CustomStringConvertible {
    case missingResource(String)

    public var description: String {
        switch self {
        case .missingResource(let name):
            "the document.cookie shim resource '\(name)' is missing: \(PackageResources.shippingAdvice)"
        }
    }
}
