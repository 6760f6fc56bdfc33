import Synchronization

/// Counts of live container objects, for leak tests and for hosts that watch their own.
public enum LiveObjects {
    static let containerCount = Atomic<Int>(0)
    static let handleCount = Atomic<Int>(0)

    /// ``HybridContainer``s not yet deinitialised.
    public static var containers: Int { containerCount.load(ordering: .relaxed) }
    /// Engine handles (one per web view the container layer made) not yet deinitialised.
    public static var engineHandles: Int { handleCount.load(ordering: .relaxed) }
}
