import Foundation

/// Why a release index was refused. The client keeps what it had (the store keeps serving its active version).
public enum ReleaseIndexError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a signed release index, or one this client cannot read.
    case malformed(source: String, reason: String)
    /// Signed by a key the app does not trust.
    case untrustedKey(source: String, signedBy: String, trusted: String)
    /// The signature does not match the bytes: changed in transit or at rest.
    case signatureInvalid(source: String)
    /// A valid index for another package or channel (a mirror serving the wrong file).
    case wrongTarget(source: String, expected: String, got: String)
    /// Older than an index this install already accepted: a mirror rolling clients back.
    case rolledBack(source: String, held: Int, offered: Int)
    /// Same sequence as the held index but other contents: the publisher's sequence is broken or a key leaked.
    case conflictingIndex(source: String, sequence: Int)
    /// Past its expiry: a mirror freezing clients on an old index, or a publisher that stopped re-signing.
    case expired(source: String, expiresAt: Date, now: Date)
    /// The server no longer serves the index (`status`, e.g. 404) and the one accepted before has expired: the
    /// install can no longer learn of new releases or withdrawals, so it says so instead of claiming to be current.
    case notServedAfterExpiry(source: String, status: Int, expiresAt: Date, now: Date)
    /// The index lists something unusable (a version or URL that does not parse).
    case invalidRelease(source: String, reason: String)
    /// The accepted index could not be remembered in the store, so it was not used.
    case storage(reason: String)

    public var description: String {
        switch self {
        case .malformed(let source, let reason):
            return "The release index at \(source) is unusable: \(reason). Is this a `hybrid publish` tree?"
        case .untrustedKey(let source, let signedBy, let trusted):
            return
                "The release index at \(source) is signed by key \(signedBy), but the app trusts release key \(trusted); publish with the app's release key."
        case .signatureInvalid(let source):
            return "The release index at \(source) does not match its signature (altered); it was ignored."
        case .wrongTarget(let source, let expected, let got):
            return "\(source) holds the index of \(got), not \(expected); the mirror serves the wrong file."
        case .rolledBack(let source, let held, let offered):
            return
                "The release index at \(source) has sequence \(offered), older than \(held) already accepted; a mirror or cache serves a stale index, so it was refused."
        case .conflictingIndex(let source, let sequence):
            return
                "The release index at \(source) differs from the accepted one with the same sequence \(sequence); every publish must raise the sequence."
        case .expired(let source, let expiresAt, let now):
            return
                "The release index at \(source) expired at \(expiresAt) (now \(now)); the publisher must re-sign it (`hybrid publish --refresh`) or the mirror is serving an old copy."
        case .notServedAfterExpiry(let source, let status, let expiresAt, let now):
            return
                "\(source) answered HTTP \(status), and the release index accepted before expired at \(expiresAt) (now \(now)): updates are frozen. Check that the mirror or CDN still serves this file and that the publisher re-signs it (`hybrid publish --refresh`)."
        case .invalidRelease(let source, let reason):
            return "The release index at \(source) lists an unusable release: \(reason)."
        case .storage(let reason):
            return
                "Cannot record the accepted release index in the package store: \(reason). Check free space and permissions."
        }
    }
}
