import Foundation
import HybridPackages
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `UpdateClient` over a static release tree (`hybrid publish` output on any HTTP server, object store or CDN):
/// `GET <base>/channels/<channel>/<id>.json` revalidated with `If-None-Match`, checked by `ReleaseChannelReader`
/// (release-key signature, sequence floor, expiry, rollout bucket, minimum host version), and package bytes
/// with `Range` requests. Each request and each check runs within `limits`, and the index is read only up to the
/// reader's size limit (see HTTPUpdateClient). See docs/release-channel.md, "Threat model: the update client".
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
    ///   - session: its configuration is used; defaults to one without a URL cache: the reader does its own
    ///     revalidation, and a cache answering for the server would hide 304s and stale copies from the checks.
    ///   - limits: deadlines for each request and each check, and the largest index read.
    ///   - excluded: versions never offered again (for example ones that failed their trial here).
    public init(
        baseURL: URL, reader: ReleaseChannelReader, session: URLSession = ChannelUpdateClient.uncachedSession(),
        limits: UpdateTransferLimits = UpdateTransferLimits(),
        excluded: @escaping @Sendable (String) -> Set<SemanticVersion> = { _ in [] }
    ) {
        self.baseURL = baseURL
        self.reader = reader
        self.excluded = excluded
        files = HTTPUpdateClient(baseURL: baseURL, session: session, limits: limits)
    }

    public var limits: UpdateTransferLimits { files.limits }

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

    /// Fetches and checks `id`'s index, without choosing a release, within `limits.checkTimeout`.
    public func currentIndex(for id: String) async throws -> ReleaseIndex? {
        guard PackageIdentifier.isValid(id) else {
            throw ReleaseIndexError.malformed(source: id, reason: "'\(id)' is not a package id")
        }
        let url = indexURL(for: id)
        return try await withCheckDeadline(limits.checkTimeout, url: url.absoluteString) {
            try await fetchIndex(for: id, at: url)
        }
    }

    private func fetchIndex(for id: String, at url: URL) async throws -> ReleaseIndex? {
        var request = URLRequest(url: url)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let tag = reader.entityTag(for: id) { request.setValue(tag, forHTTPHeaderField: "If-None-Match") }
        // Read no more than the reader would accept: an endless index stops here, not after it is in memory.
        let limit = min(limits.maximumDocumentBytes, ReleaseChannelReader.maximumIndexBytes)
        let answer = try await files.send(request) { $0.statusCode == 200 ? .collect(limit: limit) : .skip }
        switch answer.status {
        case 200:
            return try reader.accept(
                .fresh(answer.body, entityTag: answer.response.value(forHTTPHeaderField: "ETag")), for: id,
                source: url.absoluteString)
        case 304:
            return try reader.accept(.notModified, for: id, source: url.absoluteString)
        case 404:
            // Like a 304, judged against the held index: once it has expired, a missing file is an error the host
            // sees, not "up to date".
            do {
                if let expiresAt = try reader.acceptMissing(for: id, status: 404, source: url.absoluteString) {
                    Self.logger.warning(
                        "release index not found; offering nothing until the held index expires",
                        metadata: [
                            "url": "\(url.absoluteString)", "expiresAt": "\(expiresAt)",
                            "fix": "publish the index again, or check what the mirror serves at this URL",
                        ])
                }
            } catch {
                Self.logger.warning(
                    "release index not found after the held one expired",
                    metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
                throw error
            }
            return nil
        default:
            throw HTTPUpdateClientError.unexpectedStatus(url: url.absoluteString, status: answer.status)
        }
    }

    private static let logger = Logger(label: "hybrid.packages")

    public func latestRelease(for id: String) async throws -> PackageRelease? {
        guard let index = try await currentIndex(for: id) else { return nil }
        return try reader.eligibleRelease(in: index, relativeTo: indexURL(for: id), excluding: excluded(id))
    }

    public func fetch(_ artifact: PackageArtifact, range: Range<Int64>) async throws -> [UInt8] {
        try await files.fetch(artifact, range: range)
    }
}
