import Foundation
import HybridKit
import HybridKitTesting
import HybridPackages
import Synchronization

/// Stands in for the network: records requests and answers each with a canned response.
///
/// URLs in `redirects` answer 302 with their `Location` when the fetch does not follow redirects; when it does,
/// the fake follows them as URLSession would and answers for the final URL.
final class FakeNetwork: NetworkFetching {
    let requests = Mutex<[EngineRequest]>([])
    let followed = Mutex<[Bool]>([])
    let cancelled = Mutex(0)
    let redirects = Mutex<[String: String]>([:])
    /// When set, every fetch fails with this message (the network is down).
    let failure = Mutex<String?>(nil)

    struct Cancelling: NetworkFetchCancelling {
        let network: FakeNetwork
        func cancel() { network.cancelled.withLock { $0 += 1 } }
    }

    func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        requests.withLock { $0.append(request) }
        followed.withLock { $0.append(followRedirects) }
        if let failure = failure.withLock({ $0 }) {
            events(.failed(failure))
            return Cancelling(network: self)
        }
        var url = request.url.absoluteString
        if let location = redirects.withLock({ $0[url] }) {
            guard followRedirects else {
                events(.response(SchemeResponse(statusCode: 302, headers: ["Location": location])))
                events(.data(Data("moved".utf8)))
                events(.finished)
                return Cancelling(network: self)
            }
            var hops = 0
            while let next = redirects.withLock({ $0[url] }), hops < 20 {
                url = URL(string: next, relativeTo: URL(string: url))?.absoluteString ?? next
                hops += 1
            }
            events(.response(SchemeResponse(statusCode: 200, headers: ["Content-Type": "text/plain"])))
            events(.data(Data("from \(url)".utf8)))
            events(.finished)
            return Cancelling(network: self)
        }
        events(.response(SchemeResponse(statusCode: 200, headers: ["Content-Type": "text/plain", "X-From": "net"])))
        events(.data(Data("from the network".utf8)))
        events(.finished)
        return Cancelling(network: self)
    }
}

/// The URLs a handler asked the engine to load.
final class RecordedNavigations: Sendable {
    private let recorded = Mutex<[URL]>([])
    var urls: [URL] { recorded.withLock { $0 } }
    func append(_ url: URL) { recorded.withLock { $0.append(url) } }
}

/// A store with one installed package serving `https://shop.example.com/app/`.
final class OfflineFixture {
    let root: URL
    let store: PackageStore
    let network = FakeNetwork()
    static let serves = "https://shop.example.com/app/"
    /// 1,000 bytes, 0...255 repeating, so any range is easy to predict.
    static let blob = Data((0..<1000).map { UInt8($0 % 256) })

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-offline-\(UUID().uuidString)")
        let site = root.appendingPathComponent("site")
        try FileManager.default.createDirectory(
            at: site.appendingPathComponent("js"), withIntermediateDirectories: true)
        try Data("<title>shop</title>".utf8).write(to: site.appendingPathComponent("index.html"))
        try Data("hit()".utf8).write(to: site.appendingPathComponent("js/app.js"))
        try Self.blob.write(to: site.appendingPathComponent("blob.bin"))
        try Data().write(to: site.appendingPathComponent("empty.txt"))
        let keys = PackageKeyPair.generate()
        let zip = root.appendingPathComponent("shop.zip")
        let version = SemanticVersion(major: 1, minor: 0, patch: 0)
        try PackagePacker().pack(
            directory: site, options: PackOptions(id: "com.example.shop", version: version, serves: [Self.serves]),
            keyPair: keys, to: zip)
        store = try PackageStore(root: root.appendingPathComponent("store"), trustedKey: keys.verificationKey)
        try PackageInstaller(store: store, trustedKey: keys.verificationKey, containerVersion: version)
            .install(packageAt: zip)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func handler(
        chunkSize: Int = 64, spaFallback: Bool = false, navigate: EngineNavigator? = nil
    ) throws -> PackageSchemeHandler {
        let route = try OfflineRoute(prefixes: [Self.serves, "http://api.example.com/"])
        return PackageSchemeHandler(
            store: store, route: route, hop: EngineExecutorHop.immediate, navigate: navigate, spaFallback: spaFallback,
            network: network, chunkSize: chunkSize)
    }

    /// Starts `url` (a `hybrid:` URL) on a new handler and waits for the task to end.
    @EngineActor func run(
        _ url: String, method: String = "GET", headers: [(name: String, value: String)] = [],
        handler: PackageSchemeHandler? = nil
    ) async throws -> RecordingTask {
        let handler = try handler ?? self.handler()
        guard let parsed = URL(string: url) else { throw OfflineFixtureError.badURL(url) }
        let task = RecordingTask(EngineRequest(url: parsed, method: method, headers: headers))
        handler.start(task)
        return try await task.ended()
    }

    func sha256(_ path: String) -> String? {
        store.activePackage("com.example.shop")?.filesByPath[path]?.sha256
    }
}

enum OfflineFixtureError: Error { case badURL(String) }
