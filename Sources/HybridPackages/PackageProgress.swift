/// A progress report for long work (packing, verifying, diffing, installing, downloading).
public struct PackageProgress: Sendable, Equatable {
    public enum Phase: String, Sendable {
        case hashing, packing, verifying, diffing, installing, downloading
    }

    public var phase: Phase
    /// Bytes processed so far in this phase.
    public var completedBytes: Int64
    /// Bytes this phase will process in total (0 when unknown).
    public var totalBytes: Int64
    /// The file being processed, when there is one.
    public var path: String?

    public init(phase: Phase, completedBytes: Int64, totalBytes: Int64, path: String? = nil) {
        self.phase = phase
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.path = path
    }

    /// 0...1, or 0 when the total is unknown.
    public var fraction: Double { totalBytes > 0 ? Double(completedBytes) / Double(totalBytes) : 0 }
}

/// Called once per file (not per chunk), so a CLI progress bar costs nothing measurable.
public typealias PackageProgressHandler = @Sendable (PackageProgress) -> Void
