import Foundation
import HybridPackages
import Synchronization

/// An update source held in memory that can misbehave: cut artifacts short, or fail every other request.
final class InMemoryUpdateClient: UpdateClient {
    struct State {
        var releases: [String: PackageRelease] = [:]
        var blobs: [String: [UInt8]] = [:]
        /// Serve only this many bytes of each artifact (a truncated upload or a dying connection).
        var truncateAt: Int64?
        /// Throw on every n-th fetch.
        var failEvery: Int?
        var fetchCount = 0
        var requestedRanges: [Range<Int64>] = []
    }

    let state = Mutex(State())

    /// Publishes a package file and returns its artifact description.
    func publish(_ file: URL, location: String) throws -> PackageArtifact {
        let bytes = [UInt8](try Data(contentsOf: file))
        let sha = try sha256Hex(file)
        state.withLock { $0.blobs[location] = bytes }
        return PackageArtifact(location: location, size: Int64(bytes.count), sha256: sha)
    }

    func setRelease(_ release: PackageRelease) {
        state.withLock { $0.releases[release.id] = release }
    }

    func latestRelease(for id: String) async throws -> PackageRelease? {
        state.withLock { $0.releases[id] }
    }

    func fetch(_ artifact: PackageArtifact, range: Range<Int64>) async throws -> [UInt8] {
        try state.withLock { state in
            state.fetchCount += 1
            state.requestedRanges.append(range)
            if let every = state.failEvery, state.fetchCount % every == 0 {
                throw URLError(.networkConnectionLost)
            }
            guard let blob = state.blobs[artifact.location] else { throw URLError(.fileDoesNotExist) }
            let limit = min(Int64(blob.count), state.truncateAt ?? Int64.max)
            let upper = min(range.upperBound, limit)
            guard range.lowerBound < upper else { return [] }
            return Array(blob[Int(range.lowerBound)..<Int(upper)])
        }
    }

    private func sha256Hex(_ file: URL) throws -> String {
        // Reuse the library's verifier indirectly would need internals; hash with swift-crypto directly.
        CryptoHex.sha256(try Data(contentsOf: file))
    }
}
