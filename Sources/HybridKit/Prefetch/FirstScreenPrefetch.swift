import Foundation
import Logging

/// First-screen prefetch for a page, as a ``PageFeature``: the container starts the prefetches its
/// ``FirstScreenPrefetcher`` declares for a page when it loads it, and the package handler's network answers the
/// page's own matching requests from them (see <doc:FirstScreenPrefetching>).
///
/// It provides ``PageServiceID/prefetchAnswers``, which ``PackageServing`` needs: list it with a site's container.
public struct FirstScreenPrefetch: PageFeature {
    public let prefetcher: FirstScreenPrefetcher

    public init(_ prefetcher: FirstScreenPrefetcher) { self.prefetcher = prefetcher }

    public var provides: [PageServiceID] { [.prefetchAnswers] }

    public func build(_ assembly: inout PageAssembly) throws {
        let answers = PrefetchAnswers(prefetcher: prefetcher)
        assembly.services[PrefetchAnswersKey.self] = answers
        if prefetcher.answersNetworkPages {
            // Before the bridge runtime, which removes the frame-stamped post this script takes too.
            assembly.earlyUserScripts.append(
                try Self.networkScript(token: answers.token, origin: prefetcher.pageOrigin))
        } else {
            assembly.userScripts.append(try Self.userScript(token: answers.token, origin: prefetcher.pageOrigin))
        }
    }

    public func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? {
        guard let answers = services[PrefetchAnswersKey.self] else { return nil }
        guard answers.prefetcher.answersNetworkPages else { return PrefetchSession(answers: answers, engine: nil) }
        let engine = page.engine
        if !engine.supportsMessageReplies || !engine.verifiesMessageFrames {
            let why =
                engine.supportsMessageReplies
                ? "does not say which frame sent a message (on WebKitGTK, keep HybridKit's web-process extension)"
                : "has no script message replies"
            Logger(label: "hybrid.prefetch").warning(
                "network pages' requests are never answered from prefetches in this view: the engine \(why)",
                metadata: ["origin": "\(answers.prefetcher.pageOrigin)"])
        }
        engine.addScriptMessageHandler(
            PrefetchMessageAnswers(answers: answers, engine: engine), name: PrefetchMessageAnswers.handlerName,
            replies: true)
        return PrefetchSession(answers: answers, engine: engine)
    }

    /// The network-page runtime (PrefetchRuntime/network.js after the shared HooksRuntime/response.js), one
    /// closure with its config.
    static func networkScript(token: String, origin: String) throws(FirstScreenPrefetchError) -> UserScript {
        func text(_ name: String, in folder: String) throws(FirstScreenPrefetchError) -> String {
            guard let url = PackageResources.url(forResource: name, withExtension: "js", subdirectory: folder),
                let body = try? String(contentsOf: url, encoding: .utf8)
            else { throw .missingResource("\(folder)/\(name).js") }
            return body
        }
        struct Config: Encodable { let token, origin, handler: String }
        guard
            let config = try? JSONEncoder().encode(
                Config(token: token, origin: origin, handler: PrefetchMessageAnswers.handlerName))
        else { throw .missingResource("its configuration") }
        // The runtime's first statement is its 'use strict' directive: the shared helper comes after it.
        let runtime = try text("network", in: "PrefetchRuntime")
        let helper = try text("response", in: "HooksRuntime")
        let source =
            "(function (config) {\n'use strict';\n\(helper)\n\(runtime)\n})(\(String(decoding: config, as: UTF8.self)));\n"
        return UserScript(source: source, injectionTime: .documentStart, allFrames: false)
    }

    static func userScript(token: String, origin: String) throws(FirstScreenPrefetchError) -> UserScript {
        guard
            let url = PackageResources.url(
                forResource: "prefetch", withExtension: "js", subdirectory: "PrefetchRuntime"),
            let body = try? String(contentsOf: url, encoding: .utf8)
        else { throw .missingResource("PrefetchRuntime/prefetch.js") }
        // JSON string literals: neither value can close the string it is put in.
        let quoted = { (text: String) -> String in
            (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        }
        let source = body.replacingOccurrences(of: "__HYBRID_PREFETCH_TOKEN__;", with: quoted(token) + ";")
            .replacingOccurrences(of: "__HYBRID_PREFETCH_ORIGIN__;", with: quoted(origin) + ";")
        return UserScript(source: source, injectionTime: .documentStart, allFrames: false)
    }
}

public enum FirstScreenPrefetchError: Error, Sendable, Equatable, CustomStringConvertible {
    case missingResource(String)

    public var description: String {
        switch self {
        case .missingResource(let name):
            "the prefetch page script '\(name)' is missing: \(PackageResources.shippingAdvice)"
        }
    }
}

/// A view's prefetch answers (``FirstScreenPrefetch``), which the package handler's network reads.
enum PrefetchAnswersKey: PageServiceKey { typealias Value = PrefetchAnswers }

extension PageServiceID {
    public static let prefetchAnswers = PageServiceID(PrefetchAnswersKey.self)
}

/// One view's prefetch state over its life: follows its main frame, drops what it never used when it closes.
private final class PrefetchSession: PageFeatureSession {
    let answers: PrefetchAnswers
    /// The engine a network-page handler was added to, to remove it at close.
    weak var engine: (any WebEngine)?

    init(answers: PrefetchAnswers, engine: (any WebEngine)?) {
        self.answers = answers
        self.engine = engine
    }

    func mainFrameWillLoad(_ url: URL) { answers.pageWillOpen(url) }

    func mainFrameDidCommit(_ url: URL) {
        answers.mainFrameCommitted()
        answers.prefetcher.mark(url) { if $0.viewReady == nil { $0.viewReady = .now } }
    }

    func close() {
        engine?.removeScriptMessageHandler(name: PrefetchMessageAnswers.handlerName)
        answers.close()
    }
}
