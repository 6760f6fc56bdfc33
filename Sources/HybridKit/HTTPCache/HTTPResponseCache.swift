import Crypto
import Foundation
import Logging
import Metrics

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A private HTTP cache (RFC 9111) for what native code fetches for pages: package misses (the package handler's
/// network) and proxied GETs (the request hooks' full-proxy strategy). Give one instance to every container of an
/// app so their pages share it (``PackageServing/httpCache``, ``CachingProxy``).
///
/// Storage is Foundation's `URLCache`, on disk with a size bound; the rules are RFC 9111's for a private cache:
/// only GET; `no-store` (request or response) is never stored; a response is used while fresh (`max-age`,
/// `Expires`, or 10 % of its age at `Last-Modified`), revalidated with its validators (`ETag`,
/// `Last-Modified`) once stale or when `no-cache` says so, and a 304 refreshes it; `Vary` is honoured (one variant
/// per URL; `Vary: *` and `Vary: Cookie` are not stored); a request's own `no-store`, `no-cache` and `max-age`
/// are obeyed; an unsafe method on a URL invalidates it. The jar's cookies are sent with every request that goes
/// to the network, and a `Set-Cookie` reaches the jar when a response arrives from the network, never again from
/// the cache. A stored response answers only requests made as the same user: the same jar cookies for its URL and
/// the same `Authorization`.
public final class HTTPResponseCache: Sendable {
    /// Bodies larger than this are not stored.
    public let maximumEntryBytes: Int
    // URLCache is thread-safe and Sendable (Foundation on Linux, and the iOS SDKs).
    private let storage: URLCache
    private let counters: [String: Counter]
    private let logger = Logger(label: "hybrid.httpcache")

    /// - Parameters:
    ///   - directory: where the cache keeps its files (a directory the app owns, say in Caches).
    ///   - diskBytes: the size bound on disk.
    ///   - memoryBytes: how much is also kept in memory.
    ///   - maximumEntryBytes: bodies larger than this are not stored.
    public init(
        directory: URL, diskBytes: Int = 50 * 1024 * 1024, memoryBytes: Int = 4 * 1024 * 1024,
        maximumEntryBytes: Int = 5 * 1024 * 1024
    ) {
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation names the directory by path.
        storage = URLCache(memoryCapacity: memoryBytes, diskCapacity: diskBytes, diskPath: directory.path)
        #else
        storage = URLCache(memoryCapacity: memoryBytes, diskCapacity: diskBytes, directory: directory)
        #endif
        self.maximumEntryBytes = maximumEntryBytes
        var counters: [String: Counter] = [:]
        for outcome in ["hit", "revalidated", "miss", "stored"] {
            counters[outcome] = Counter(label: HybridMetrics.httpCache, dimensions: [("outcome", outcome)])
        }
        self.counters = counters
    }

    func count(_ outcome: String) { counters[outcome]?.increment() }

    /// A stored response and when it was fetched.
    struct Stored {
        var status: Int
        var headers: [String: String]
        var body: Data
        var requestTime: Date
        var responseTime: Date
        var varied: [String: String]
        /// Who the response was fetched as (``HTTPResponseCache/credentialState(cookieHeader:authorization:)``).
        var credentials: String

        func age(now: Date) -> TimeInterval {
            CacheRules.currentAge(headers, requestTime: requestTime, responseTime: responseTime, now: now)
        }

        var lifetime: TimeInterval { CacheRules.freshnessLifetime(headers, status: status) }

        var validators: [(String, String)] {
            var list: [(String, String)] = []
            if let etag = CacheRules.header("ETag", in: headers) { list.append(("If-None-Match", etag)) }
            if let modified = CacheRules.header("Last-Modified", in: headers) {
                list.append(("If-Modified-Since", modified))
            }
            return list
        }
    }

    private static let metaHeader = "X-Hybrid-Cache-Meta"

    private struct Meta: Codable {
        var url: String
        var status: Int
        var requestTime: Double
        var responseTime: Double
        var varied: [String: String]
        var credentials: String
    }

    /// Who a request is made as: a SHA-256 of the `Cookie` header the jar sends with it and its `Authorization`.
    /// A stored response is only ever used for the same state, so signing out, or in as someone else, never
    /// replays what the previous user was sent (which a browser's cache would, for as long as it stays fresh).
    /// A digest, so no cookie value is written to the cache's files.
    static func credentialState(cookieHeader: String?, authorization: String?) -> String {
        let text = "\(cookieHeader ?? "")\u{0}\(authorization ?? "")"
        return SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The storage key of `url`: swift-corelibs-foundation's URLCache ignores the query when it matches a
    /// request, so each URL is stored under a path of its own (a 128-bit FNV-1a digest of the whole URL), and the
    /// URL itself is kept in the entry and compared on the way out.
    private static func key(_ url: URL) -> URLRequest {
        let bytes = Array(url.absoluteString.utf8)
        var digest = ""
        for seed: UInt64 in [0xcbf2_9ce4_8422_2325, 0x6c62_272e_07bb_0142] {
            var hash = seed
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            digest += String(hash, radix: 16)
        }
        return URLRequest(url: URL(string: "https://cache.hybrid.invalid/\(digest)") ?? url)
    }

    /// The stored response for `request`, made as `credentials`, whose `Vary` headers match, if any.
    func lookup(_ request: EngineRequest, credentials: String) -> Stored? {
        guard let cached = storage.cachedResponse(for: Self.key(request.url)),
            let http = cached.response as? HTTPURLResponse
        else { return nil }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            guard let name = key as? String, let value = value as? String else { continue }
            headers[name] = value
        }
        guard let encoded = CacheRules.header(Self.metaHeader, in: headers),
            let data = Data(base64Encoded: encoded), let meta = try? JSONDecoder().decode(Meta.self, from: data)
        else { return nil }
        guard meta.url == request.url.absoluteString, meta.credentials == credentials else { return nil }
        headers = headers.filter { $0.key.caseInsensitiveCompare(Self.metaHeader) != .orderedSame }
        for (name, value) in meta.varied where (request.header(name) ?? "") != value { return nil }
        return Stored(
            status: meta.status, headers: headers, body: cached.data,
            requestTime: Date(timeIntervalSince1970: meta.requestTime),
            responseTime: Date(timeIntervalSince1970: meta.responseTime), varied: meta.varied,
            credentials: meta.credentials)
    }

    /// Stores a response to `request`, made as `credentials`, when the rules allow it; true when stored.
    @discardableResult
    func store(
        _ request: EngineRequest, credentials: String, status: Int, headers: [String: String], body: Data,
        requestTime: Date, responseTime: Date
    ) -> Bool {
        guard request.method.uppercased() == "GET", body.count <= maximumEntryBytes,
            CacheRules.mayStore(status: status, response: headers, request: request)
        else { return false }
        var varied: [String: String] = [:]
        for name in CacheRules.varyNames(headers) { varied[name] = request.header(name) ?? "" }
        let meta = Meta(
            url: request.url.absoluteString, status: status, requestTime: requestTime.timeIntervalSince1970,
            responseTime: responseTime.timeIntervalSince1970, varied: varied, credentials: credentials)
        guard let encoded = try? JSONEncoder().encode(meta) else { return false }
        // A server's own header of that name (in any case) must not stand for ours. `Set-Cookie` is never kept
        // (as browsers' disk caches keep none): the jar had it when the response arrived, a replay must not set it
        // again, and no cookie value is written to the cache's files. The fetchers HybridKit ships hand the jar
        // every `Set-Cookie` and pass none on; a host's own `NetworkFetching` may.
        var fields = headers.filter {
            $0.key.caseInsensitiveCompare(Self.metaHeader) != .orderedSame
                && !["set-cookie", "set-cookie2"].contains($0.key.lowercased())
        }
        fields[Self.metaHeader] = encoded.base64EncodedString()
        // URLCache keeps what a URL response is; the status rides in the meta (URLCache on Linux keeps 200s only).
        guard
            let response = HTTPURLResponse(
                url: request.url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields)
        else { return false }
        storage.storeCachedResponse(
            CachedURLResponse(response: response, data: body, userInfo: nil, storagePolicy: .allowed),
            for: Self.key(request.url))
        count("stored")
        return true
    }

    /// Drops what is stored for `url` (an unsafe method reached it, §4.4).
    func invalidate(_ url: URL) { storage.removeCachedResponse(for: Self.key(url)) }

    /// Drops everything stored.
    public func removeAll() { storage.removeAllCachedResponses() }

    /// Bytes on disk now.
    public var diskBytes: Int { storage.currentDiskUsage }
}
