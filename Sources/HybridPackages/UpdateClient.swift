/// The seam to wherever packages are published (an HTTP server or CDN in the app, a fake in tests).
///
/// Downloads go through byte ranges so an interrupted transfer resumes where it stopped instead of
/// starting over — the only thing a server has to support is `Range` requests.
public protocol UpdateClient: Sendable {
    /// The newest release of `id`, or nil when the source knows no release of it.
    func latestRelease(for id: String) async throws -> PackageRelease?

    /// Bytes `range` of `artifact`. May return fewer bytes than asked (a short read), but never more;
    /// returning no bytes for a non-empty range means the source has nothing more to give.
    func fetch(_ artifact: PackageArtifact, range: Range<Int64>) async throws -> [UInt8]
}
