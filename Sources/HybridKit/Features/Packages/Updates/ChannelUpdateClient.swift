import Foundation
import HybridPackages

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `UpdateClient` over a static release tree (`hybrid publish` output on any HTTP server, object store or CDN):
/// `GET <base>/channels/<channel>/<id>.json` revalidated with `If-None-Match`, checked by `ReleaseChannelReader`
/// (release-key signature, sequence floor, expiry, rollout bucket, minimum host version), and package bytes
/// with `Range` requests. See docs/release-channel.md.
public struct ChannelUpdateClient: UpdateClient {
    /// The tree's root, e.g. `https://cdn.example.com/app-releases/`.
    public let baseURL: URL
    public let reader: ReleaseChannelReader
    /// Versions never offered again (for example ones that failed on this install).
    public let excluded: @Sendable (String) -> Set<SemanticVersion>
    private let files: HTTPUpdateClient

    /// - Parameters:
    ///   - baseURL: the tree's root.
    ///   - reader: checks each index and picks the release this install is offered.
    ///   - session: defaults to one without a URL cache: the reader does its own revalidation, and a cache
    ///     answering for the server would hide 304s and stale copies from the checks.
    ///   - excluded: versions never offered again (for example ones that failed their trial here).
    public init(
        baseURL: URL, reader: ReleaseChannelReader, session: URLSession = ChannelUpdateClient.uncachedSession(),
        excluded: @escaping @Sendable (String) -> Set<SemanticVersion> = { _ in [] }
    ) {
        self.baseURL = baseURL
        self.reader = reader
        self.excluded = excluded
        files = HTTPUpdateClient(baseURL: baseURL, session: session)
    }

    public static func uncachedSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }

    /// The URL of `id`'s index on the reader's channel.
    public func indexURL(for id: String) -> URL {
        // Package ids and channel names are restricted to [A-Za-z0-9._-] (checked), so they are safe path parts.
        URL(
            string: ReleaseTreeLayout.indexPath(channel: reader.configuration.channel, id: id),
            relativeTo: baseURL.absoluteString.hasSuffix("/") ? baseURL : baseURL.appendingPathComponent(""))?
            .absoluteURL ?? baseURL
    }

    /// Fetches and checks `id`'s index, without choosing a release.
    public func currentIndex(for id: String) async throws -> ReleaseIndex? {
        guard PackageIdentifier.isValid(id) else {
            throw ReleaseIndexError.malformed(source: id, reason: "'\(id)' is not a package id")
        }
        let url = indexURL(for: id)
        var request = URLRequest(url: url)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let tag = reader.entityTag(for: id) { request.setValue(tag, forHTTPHeaderField: "If-None-Match") }
        let data: Data
        let response: URLResponse
        do { (data, response) = try await files.session.data(for: request) } catch {
            throw HTTPUpdateClientError.transport(url: url.absoluteString, reason: error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            throw HTTPUpdateClientError.invalidLocation(url.absoluteString)
        }
        switch http.statusCode {
        case 200:
            return try reader.accept(
                .fresh(data, entityTag: http.value(forHTTPHeaderField: "ETag")), for: id, source: url.absoluteString)
        case 304:
            return try reader.accept(.notModified, for: id, source: url.absoluteString)
        case 404:
            return nil
        default:
            throw HTTPUpdateClientError.unexpectedStatus(url: url.absoluteString, status: http.statusCode)
        }
    }

    public func latestRelease(for id: String) async throws -> PackageRelease? {
        guard let index = try await currentIndex(for: id) else { return nil }
        return try reader.eligibleRelease(in: index, relativeTo: indexURL(for: id), excluding: excluded(id))
    }

    public func fetch(_ artifact: PackageArtifact, range: Range<Int64>) async throws -> [UInt8] {
        try await files.fetch(artifact, range: range)
    }
}
