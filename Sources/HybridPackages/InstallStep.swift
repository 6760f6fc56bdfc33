/// Points between the steps of an install, reported to an optional hook.
///
/// Exists so tests (and the `package-install-child` crash test) can stop an install at an exact step; the
/// ordering documents the install protocol: nothing is visible to readers before `.committed`, and nothing
/// serves before `.activated`.
public enum InstallStep: Sendable, Equatable {
    /// Signature, manifest, container version and zip entries all checked; nothing written yet.
    case verified
    case stagingCreated
    /// One file written and hash-checked in staging (1-based index of `count`).
    case fileWritten(index: Int, count: Int)
    /// Every file and the manifest are in staging.
    case filesWritten
    /// Staging is durable on disk.
    case synced
    /// Staging renamed to `versions/<version>`.
    case committed
    /// The active pointer names the new version.
    case activated
}
