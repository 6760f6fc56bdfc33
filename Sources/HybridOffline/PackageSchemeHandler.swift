import Dispatch
import Foundation
import HybridCore
import HybridPackages
import Synchronization

/// Serves the active packages of a ``PackageStore`` under a custom scheme, and everything else from the network.
///
/// `hybrid://shop.example.com/app/x.js` stands for `https://shop.example.com/app/x.js` (``OfflineURLMapping``).
/// When an active package serves that URL and has the file, the file is streamed from disk with the manifest's
/// type and SHA-256 as its ETag (conditional and single-range requests honoured). Otherwise — no package, file
/// not in the package, a method other than GET/HEAD, or a prefix on the degrade list — the real URL is fetched
/// with ``NetworkFetching`` and streamed through. Paths that try to leave a package fail as forbidden.
///
/// Called on the engine's executor like every ``SchemeHandler``; disk reads run on a background queue and each
/// chunk hops back with ``EngineHop``. The next chunk is read only after the previous one was handed to the
/// engine, so a large file never piles up in memory.
public final class PackageSchemeHandler: SchemeHandler {
    public let mapping: OfflineURLMapping
    public let resolver: PackageResolver
    private let network: any NetworkFetching
    private let hop: EngineHop
    private let chunkSize: Int
    private let readQueue = DispatchQueue(label: "hybrid.offline.read", qos: .userInitiated, attributes: .concurrent)
    private let degraded = Mutex<[URLPrefix]>([])
    // Keyed by task identity. Written on the engine's executor only, so a hop that finds its transfer here
    // knows `stop(_:)` has not been called for it.
    private let transfers = Mutex<[ObjectIdentifier: Transfer]>([:])

    /// - Parameters:
    ///   - hop: runs a closure on the engine's executor; ``hop(onExecutorOf:)`` makes one for an engine.
    ///   - spaFallback: serve a package's entry page for extension-less paths it has no file for.
    public init(
        store: PackageStore, route: OfflineRoute, hop: @escaping EngineHop, spaFallback: Bool = false,
        network: any NetworkFetching = URLSessionNetworkFetcher(), chunkSize: Int = 256 * 1024
    ) {
        mapping = OfflineURLMapping(route: route)
        resolver = PackageResolver(store: store, spaFallback: spaFallback)
        self.network = network
        self.hop = hop
        self.chunkSize = chunkSize
    }

    /// URL prefixes that always load from the network, even when a package serves them (to take a broken
    /// package out of service without an update). Takes effect on the next request.
    public var degradedPrefixes: Set<String> { Set(degraded.withLock { $0.map(\.description) }) }

    public func setDegradedPrefixes(_ prefixes: Set<String>) throws(OfflineRouteError) {
        var parsed: [URLPrefix] = []
        for text in prefixes {
            guard let prefix = URLPrefix(text) else { throw .invalidPrefix(text) }
            parsed.append(prefix)
        }
        degraded.withLock { $0 = parsed }
    }

    // MARK: SchemeHandler

    public func start(_ task: any SchemeTask) {
        guard let url = mapping.packageURL(for: task.request.url) else {
            task.fail(
                .forbidden("\(task.request.url.absoluteString) is not a '\(mapping.route.scheme)' URL with a host"))
            return
        }
        let method = task.request.method.uppercased()
        // Packages hold static files: other methods (form posts, APIs) are the server's business.
        guard method == "GET" || method == "HEAD", !isDegraded(url) else {
            fetch(url, for: task)
            return
        }
        let resolved: ResolvedPackageFile?
        do {
            resolved = try resolver.resolve(url.absoluteString)
        } catch {
            task.fail(.forbidden(error.description))
            return
        }
        guard let resolved else {
            fetch(url, for: task)
            return
        }
        serve(resolved, to: task, headOnly: method == "HEAD")
    }

    public func stop(_ task: any SchemeTask) {
        transfers.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }?.cancel()
    }

    // MARK: Package files

    private func serve(_ file: ResolvedPackageFile, to task: any SchemeTask, headOnly: Bool) {
        let plan = PackageResponsePlan(entry: file.entry, request: task.request)
        guard let range = plan.body, !headOnly else {
            task.respond(plan.response)
            task.finish()
            return
        }
        let transfer = register(task)
        let chunkSize = self.chunkSize
        readQueue.async { [self] in
            let reader: FileChunkReader
            do {
                reader = try FileChunkReader(url: file.fileURL, range: range, chunkSize: chunkSize)
            } catch {
                end(task, transfer, .failed(Self.damaged(file, error)))
                return
            }
            hop { [self] in
                guard isActive(task, transfer) else { return }
                task.respond(plan.response)
                readNext(reader, file, task, transfer)
            }
        }
    }

    /// Reads one chunk on the read queue, hands it to the task on the engine's executor, then schedules the next.
    private func readNext(
        _ reader: FileChunkReader, _ file: ResolvedPackageFile, _ task: any SchemeTask, _ transfer: Transfer
    ) {
        readQueue.async { [self] in
            guard !transfer.isCancelled else { return }
            let chunk: Data
            do {
                chunk = try reader.next()
            } catch {
                end(task, transfer, .failed(Self.damaged(file, error)))
                return
            }
            hop { [self] in
                guard isActive(task, transfer) else { return }
                task.send(chunk)
                if reader.isDone {
                    unregister(task)
                    task.finish()
                } else {
                    readNext(reader, file, task, transfer)
                }
            }
        }
    }

    private static func damaged(_ file: ResolvedPackageFile, _ error: any Error) -> String {
        "\(file.package.id) \(file.package.version): cannot read \(file.entry.path) (\(error)); "
            + "the store is damaged: reopen the PackageStore to repair it, or reinstall the package"
    }

    // MARK: Network

    private func isDegraded(_ url: URL) -> Bool {
        guard let asked = URLPrefix(url.absoluteString) else { return false }
        return degraded.withLock { prefixes in
            prefixes.contains { $0.origin == asked.origin && asked.path.hasPrefix($0.path) }
        }
    }

    private func fetch(_ url: URL, for task: any SchemeTask) {
        // Only origins the route names: anything else would let pages use the app as an open proxy
        // (loopback and private hosts included) without CORS.
        guard mapping.isRouted(url) else {
            task.fail(
                .forbidden(
                    "\(url.absoluteString) is not under an origin of the offline route; add its prefix to "
                        + "OfflineRoute.prefixes or reference it with an absolute http(s) URL"))
            return
        }
        var request = task.request
        request.url = url
        // The server sees the page it stands for, not the custom scheme.
        request.headers = request.headers.map { header in
            guard header.name.caseInsensitiveCompare("Referer") == .orderedSame,
                let referer = URL(string: header.value), let mapped = mapping.packageURL(for: referer)
            else { return header }
            return (header.name, mapped.absoluteString)
        }
        let transfer = register(task)
        let fetch = network.fetch(request) { [weak self] event in
            transfer.enqueue(event)
            self?.hop { [weak self] in self?.deliver(transfer.drain(), to: task, transfer) }
        }
        transfer.attach(fetch)
    }

    /// Passes network events to the task, on the engine's executor, until the transfer ends.
    private func deliver(_ events: [NetworkFetchEvent], to task: any SchemeTask, _ transfer: Transfer) {
        for event in events {
            guard isActive(task, transfer) else { return }
            switch event {
            case .response(let response): task.respond(response)
            case .data(let data): task.send(data)
            case .finished:
                unregister(task)
                task.finish()
            case .failed(let message):
                unregister(task)
                task.fail(.failed(message))
            }
        }
    }

    // MARK: Transfers

    private func register(_ task: any SchemeTask) -> Transfer {
        let transfer = Transfer()
        transfers.withLock { $0[ObjectIdentifier(task)] = transfer }
        return transfer
    }

    private func unregister(_ task: any SchemeTask) {
        _ = transfers.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
    }

    /// Whether `transfer` is still the task's live transfer. Checked on the engine's executor before every call
    /// to the task, so nothing reaches it after `stop(_:)`.
    private func isActive(_ task: any SchemeTask, _ transfer: Transfer) -> Bool {
        transfers.withLock { $0[ObjectIdentifier(task)] } === transfer && !transfer.isCancelled
    }

    private func end(_ task: any SchemeTask, _ transfer: Transfer, _ error: SchemeTaskError) {
        hop { [self] in
            guard isActive(task, transfer) else { return }
            unregister(task)
            task.fail(error)
        }
    }
}
