import Crypto
import Foundation

/// Where an install falls in a staged rollout: a number in 0..<10000 derived from the install's persisted id,
/// the package and the version, so the same install gets the same answer on every check (no flapping between
/// versions), and each release draws its own sample of installs (the same few devices are not always first).
public struct RolloutBucket: Sendable, Hashable {
    public let value: Int

    public init(installID: String, packageID: String, version: String) {
        let digest = SHA256.hash(data: Data("\(installID)\n\(packageID)\n\(version)".utf8))
        let prefix = digest.prefix(8).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        value = Int(prefix % 10_000)
    }

    /// Whether a release rolled out to `percent` % of installs reaches this one.
    public func isIncluded(inPercent percent: Int) -> Bool { value < max(0, min(100, percent)) * 100 }
}
