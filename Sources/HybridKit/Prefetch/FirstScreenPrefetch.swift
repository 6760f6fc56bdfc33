import Foundation

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
        assembly.userScripts.append(try Self.userScript(token: answers.token, origin: prefetcher.site.pageOrigin))
    }

    public func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? {
        services[PrefetchAnswersKey.self].map(PrefetchSession.init)
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

    init(answers: PrefetchAnswers) { self.answers = answers }

    func mainFrameWillLoad(_ url: URL) { answers.pageWillOpen(url) }

    func mainFrameDidCommit(_ url: URL) {
        answers.prefetcher.mark(url) { if $0.viewReady == nil { $0.viewReady = .now } }
    }

    func close() { answers.close() }
}
