/// Why an open of a version on trial did not count as a boot.
public enum BootFailure: String, Sendable, Codable, Hashable, CustomStringConvertible {
    /// The page did not confirm (`hybrid.packages.ready()`) within the deadline.
    case notConfirmed
    /// The web content process died while the version loaded.
    case webProcessTerminated
    /// The page rendered blank (the white-screen probe).
    case blankPage
    /// The app itself ended during the open: found on the next start, since the open was recorded before loading.
    case interruptedOpen
    /// The trial's record could not be written before an open: without it a crash during the open would go
    /// uncounted, so the version is rolled back rather than served unwatched.
    case trialNotRecorded

    public var description: String {
        switch self {
        case .notConfirmed: "the page did not confirm it booted in time"
        case .webProcessTerminated: "the web process was killed while it loaded"
        case .blankPage: "the page rendered blank"
        case .interruptedOpen: "the app ended while the version was opening"
        case .trialNotRecorded: "the boot trial could not be recorded on disk (is the store writable?)"
        }
    }
}

/// A version rolled back by boot safety: never activated or offered again on this install.
public struct BadVersion: Sendable, Codable, Hashable {
    public var version: SemanticVersion
    public var reason: BootFailure
    public var markedAt: Date

    public init(version: SemanticVersion, reason: BootFailure, markedAt: Date) {
        self.version = version
        self.reason = reason
        self.markedAt = markedAt
    }
}

import Foundation
