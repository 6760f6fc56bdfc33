import Foundation
import HybridCookies
import Logging
import Synchronization

/// Network pages' main documents fetched natively, as a ``PageFeature``: the container's `load` of a page on one
/// of the ``NetworkPagePrefetcher``'s origins shows the document native code fetched while the view started (see
/// <doc:FirstScreenPrefetching>).
public struct NetworkPagePrefetch: PageFeature {
    public let prefetcher: NetworkPagePrefetcher

    public init(_ prefetcher: NetworkPagePrefetcher) { self.prefetcher = prefetcher }

    public var provides: [PageServiceID] { [.networkPages] }

    public func build(_ assembly: inout PageAssembly) throws {
        assembly.services[NetworkPagesKey.self] = prefetcher
    }

    public func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? { nil }
}

/// The view's network-page prefetcher (``NetworkPagePrefetch``), which the container's loads consult.
enum NetworkPagesKey: PageServiceKey { typealias Value = NetworkPagePrefetcher }

extension PageServiceID {
    public static let networkPages = PageServiceID(NetworkPagesKey.self)
}

/// One view's hand-over of natively fetched documents to its engine: waits for the document a load asked for and
/// shows it, or loads the page the plain way, unless a later load (or the container closing) superseded it.
/// Runs on the engine's actor, like every caller of the port.
@EngineActor
final class NetworkPageHandOver {
    private let engine: any WebEngine
    private let page: HybridPage
    private let prefetcher: NetworkPagePrefetcher
    /// Bumped by every load and by whatever replaces it: a hand-over whose generation is stale does nothing.
    private var generation = 0

    init(page: HybridPage, prefetcher: NetworkPagePrefetcher) {
        engine = page.engine
        self.page = page
        self.prefetcher = prefetcher
    }

    /// A later load, or the container closing: a pending hand-over must not load anything. A blank start page
    /// that is still loading stays hidden: whatever replaces the hand-over waits for its end.
    func supersede() { generation += 1 }

    /// The container closed: nothing waits for the blank start page any more.
    func close() {
        supersede()
        page.endWarmUp()
    }

    /// The host stopped the view: a pending hand-over or a load that waits for the blank start page must not load
    /// anything, as the engine drops a load that is stopped. The blank page's load is stopped too and will never
    /// end, so nothing waits for it any more.
    func stop() {
        close()
    }

    /// A host load that is not a network page's, while the view's blank start page is still loading: `load` runs
    /// once that page ended (at most the policy's `maximumWait`), unless a later load superseded it meanwhile.
    /// Issued at once, WebKitGTK drops the blank page before its process is up and starts the host's page with no
    /// URL, so the host would hear a start naming no page. False when no blank page is loading: the caller loads
    /// at once (and hears the engine's error, if any).
    func deferWhileWarmingUp(_ url: URL?, _ load: @escaping @EngineActor @Sendable () throws(EngineError) -> Void)
        -> Bool
    {
        supersede()
        guard page.warmingUp else { return false }
        let current = generation
        let wait = prefetcher.policy.maximumWait
        let deadline = ContinuousClock.now + wait
        Task {
            await self.waitForWarmUp(by: deadline, wait: wait, url: url)
            guard current == self.generation else { return }
            do throws(EngineError) {
                try load()
            } catch {
                self.prefetcher.logger.warning(
                    "the engine refused a load that waited for the view's blank start page",
                    metadata: ["url": "\(url?.absoluteString ?? "?")", "error": "\(error)"])
            }
        }
        return true
    }

    /// Starts showing `request` from a native fetch; false when the prefetcher does not take it (the caller loads
    /// it the plain way).
    func start(_ request: EngineRequest, userAgent: String?) -> Bool {
        supersede()
        guard let fetch = prefetcher.fetch(for: request, userAgent: userAgent) else { return false }
        let current = generation
        // A view that never loaded launches its web process at its first load, and only then asks for the
        // document: started now, the launch runs while the document is fetched instead of after it (a document
        // a tap already fetched gains nothing from it).
        if !fetch.hasOutcome, page.startWebProcessQuietly() {
            prefetcher.metrics.count(.processStarted)
        }
        let wait = prefetcher.policy.maximumWait
        let deadline = ContinuousClock.now + wait
        Task { await self.handOver(request, fetch: fetch, generation: current, deadline: deadline, wait: wait) }
        return true
    }

    private func handOver(
        _ request: EngineRequest, fetch: NetworkDocumentFetch, generation current: Int,
        deadline: ContinuousClock.Instant, wait: Duration
    ) async {
        let outcome = await fetch.outcome(by: deadline, wait: wait)
        guard current == generation else { return fetch.drop() }
        await waitForWarmUp(by: deadline, wait: wait, url: request.url)
        guard current == generation else { return fetch.drop() }
        switch outcome {
        case .fallback(let why):
            loadPlainly(request, because: why)
        case .document(let document):
            if fetch.startedEarly, Self.isNoStore(document.response) {
                return loadPlainly(request, because: .noStoreKept)
            }
            do throws(EngineError) {
                try await applyCookies(document.cookies)
            } catch {
                return loadPlainly(request, because: .engineRefused("its cookie store: \(error)"))
            }
            guard current == generation else { return }
            do throws(EngineError) {
                try engine.loadSimulatedRequest(
                    document.request, response: document.response, responseData: document.body)
                prefetcher.metrics.count(.shown)
            } catch {
                loadPlainly(request, because: .engineRefused(error.description))
            }
        }
    }

    /// Waits until the blank document a cold view's process started with is in, so that the page's load does
    /// not replace it half-way (their events would mix); past `deadline`, stops hiding it and goes on anyway.
    private func waitForWarmUp(by deadline: ContinuousClock.Instant, wait: Duration, url: URL?) async {
        if await warmUpEnded(by: deadline) { return }
        prefetcher.logger.warning(
            "the view's blank start page did not end within the network page's wait: loading the page anyway",
            metadata: ["url": "\(url?.absoluteString ?? "?")", "wait": "\(wait)"])
        page.stopWaitingForWarmUp()
    }

    /// True once the blank start page ended; false when `deadline` came first.
    private func warmUpEnded(by deadline: ContinuousClock.Instant) async -> Bool {
        guard page.warmingUp else { return true }
        let once = ResumeOnce()
        return await withCheckedContinuation { continuation in
            once.set(continuation)
            page.whenWarmUpEnds { once.resume(true) }
            Task {
                try? await Task.sleep(until: deadline)
                once.resume(false)
            }
        }
    }

    private func loadPlainly(_ request: EngineRequest, because why: NetworkPageFallback) {
        prefetcher.metrics.count(.fallback)
        prefetcher.logger.warning(
            "network page loaded by the engine itself, not from the native fetch",
            metadata: ["url": "\(request.url.absoluteString)", "why": "\(why)"])
        do throws(EngineError) {
            try engine.load(request)
        } catch {
            prefetcher.logger.warning(
                "the engine refused to load the network page", metadata: ["url": "\(request.url)", "error": "\(error)"])
        }
    }

    /// Applies the document's `Set-Cookie` values as the engine would have on its own load: to the jar, and the
    /// changes to the engine's store before the document is shown (its scripts and requests see them at once).
    private func applyCookies(_ kept: [(values: [String], url: URL)]) async throws(EngineError) {
        guard !kept.isEmpty else { return }
        let jar = prefetcher.jar
        let changes = JarChangesPush(jar: jar)
        let handler = JarCookieHandler(jar: jar)
        for cookie in kept { handler.storeSetCookies(cookie.values, from: cookie.url, firstParty: nil) }
        try await changes.push(jar, to: engine.cookieStore)
    }

    static func isNoStore(_ response: SchemeResponse) -> Bool {
        let value = response.headers.first { $0.key.caseInsensitiveCompare("Cache-Control") == .orderedSame }?.value
        return value?.lowercased().contains("no-store") == true
    }
}

/// A continuation resumed by whichever of two callers comes first.
private final class ResumeOnce: Sendable {
    private let continuation = Mutex<CheckedContinuation<Bool, Never>?>(nil)

    func set(_ continuation: CheckedContinuation<Bool, Never>) { self.continuation.withLock { $0 = continuation } }

    func resume(_ value: Bool) { continuation.withLock { $0.take() }?.resume(returning: value) }
}
