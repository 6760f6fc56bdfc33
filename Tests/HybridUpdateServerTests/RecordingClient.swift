import Foundation
import HybridPackages
import Synchronization

/// Wraps a real client: records every range asked for, and can fail every fetch after the first `allowed`
/// ones (a connection that dies mid-download).
final class RecordingClient: UpdateClient {
    let inner: any UpdateClient
    let allowed: Int?
    let ranges = Mutex<[Range<Int64>]>([])

    init(_ inner: any UpdateClient, failAfter allowed: Int? = nil) {
        self.inner = inner
        self.allowed = allowed
    }

    func latestRelease(for id: String) async throws -> PackageRelease? {
        try await inner.latestRelease(for: id)
    }

    func fetch(_ artifact: PackageArtifact, range: Range<Int64>) async throws -> [UInt8] {
        let count = ranges.withLock {
            $0.append(range)
            return $0.count
        }
        if let allowed, count > allowed { throw URLError(.networkConnectionLost) }
        return try await inner.fetch(artifact, range: range)
    }
}
