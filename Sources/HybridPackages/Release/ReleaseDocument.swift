import Foundation

/// The JSON of `GET /v1/packages/<id>/latest`: `{id, version, full: {url, size, sha256}, diffs: [{from, url,
/// size, sha256}]}`. Shared by the server (which writes it) and `HTTPUpdateClient` (which reads it), so the two
/// cannot drift apart.
public struct ReleaseDocument: Sendable, Hashable, Codable {
    public var id: String
    public var version: String
    public var full: ReleaseFile
    public var diffs: [ReleaseDiff]
    /// Diffs with binary deltas, listed apart so a client that predates deltas never picks one (it ignores this
    /// field and takes ``diffs``).
    public var deltaDiffs: [ReleaseDiff]?

    public init(
        id: String, version: String, full: ReleaseFile, diffs: [ReleaseDiff], deltaDiffs: [ReleaseDiff]? = nil
    ) {
        self.id = id
        self.version = version
        self.full = full
        self.diffs = diffs
        self.deltaDiffs = deltaDiffs
    }

    /// The release as `PackageUpdater` sees it, with every file URL made absolute against `base` (the URL the
    /// document was fetched from).
    public func release(relativeTo base: URL) throws(HTTPUpdateClientError) -> PackageRelease {
        guard let version = SemanticVersion(version) else {
            throw .malformedRelease(url: base.absoluteString, reason: "version '\(version)' is not SemVer")
        }
        let fullArtifact = PackageArtifact(
            location: try Self.absolute(full.url, base: base), size: full.size, sha256: full.sha256)
        return PackageRelease(
            id: id, version: version, full: fullArtifact, diffs: try Self.artifacts(diffs, base: base),
            deltaDiffs: try Self.artifacts(deltaDiffs ?? [], base: base))
    }

    private static func artifacts(_ diffs: [ReleaseDiff], base: URL) throws(HTTPUpdateClientError)
        -> [SemanticVersion: PackageArtifact]
    {
        var artifacts: [SemanticVersion: PackageArtifact] = [:]
        for diff in diffs {
            guard let from = SemanticVersion(diff.from) else {
                throw .malformedRelease(
                    url: base.absoluteString, reason: "diff base '\(diff.from)' is not SemVer")
            }
            artifacts[from] = PackageArtifact(
                location: try absolute(diff.url, base: base), size: diff.size, sha256: diff.sha256)
        }
        return artifacts
    }

    private static func absolute(_ text: String, base: URL) throws(HTTPUpdateClientError) -> String {
        guard let url = URL(string: text, relativeTo: base) else {
            throw .malformedRelease(url: base.absoluteString, reason: "'\(text)' is not a URL")
        }
        return url.absoluteString
    }
}
