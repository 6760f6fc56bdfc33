import Foundation

/// The seam for "now", so activation times recorded in the store are deterministic in tests.
public protocol PackageClock: Sendable {
    func now() -> Date
}

/// The wall clock.
public struct SystemPackageClock: PackageClock {
    public init() {}
    public func now() -> Date { Date() }
}
