import Foundation
import Logging
import Synchronization

/// Bytes native sends a page, waiting for the page to fetch them from the bridge's scheme
/// (``BridgeBytesSchemeHandler``): each under a random id, for one security origin, once, for a bounded time.
///
/// Registered from whichever thread encodes a method's result (methods may run off the engine's actor), so the
/// state is behind a lock. Thread-safe.
final class ByteRedemptions: Sendable {
    /// Why bytes could not be registered or redeemed. Unknown, spent, expired and another origin's ids all read the
    /// same (`unknown`): a page probing ids learns nothing about which exist.
    enum Failure: Error, Equatable {
        case unknown
        case tooLarge(size: Int, limit: Int)
        case storeFull(held: Int, limit: Int)
        case tooManyHeld(held: Int, limit: Int)
        case opaqueOrigin
    }

    private struct Entry {
        let owner: String
        let data: Data
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var held = 0
    }

    private static let logger = Logger(label: "hybrid.bridge")
    private let state = Mutex(State())
    private let registeredAny = Atomic<Bool>(false)
    let limits: BridgeLimits

    /// Whether bytes were ever registered here: answers assembled from separate encodings (a stream's chunk) are
    /// looked through for placeholders only then.
    var everRegistered: Bool { registeredAny.load(ordering: .relaxed) }

    init(limits: BridgeLimits) {
        self.limits = limits
    }

    /// Bytes held now, waiting to be fetched (for tests and diagnostics).
    var heldBytes: Int { state.withLock { $0.held } }
    /// Entries waiting now.
    var count: Int { state.withLock { $0.entries.count } }

    /// Keeps `data` for `owner` until it is fetched or ``BridgeLimits/byteRedemptionTimeout`` passes; returns its id.
    func register(_ data: Data, owner: String) throws(Failure) -> String {
        // An opaque origin is every sandboxed frame's: it names no one, so it cannot own bytes.
        guard owner != "null" else { throw .opaqueOrigin }
        guard data.count <= limits.maxBinaryBytes else {
            throw .tooLarge(size: data.count, limit: limits.maxBinaryBytes)
        }
        let id = Self.randomID()
        let limit = limits.maxHeldBinaryBytes
        let maxValues = limits.maxHeldBinaryValues
        let stored = state.withLock { state -> Result<Void, Failure> in
            guard state.held + data.count <= limit else { return .failure(.storeFull(held: state.held, limit: limit)) }
            guard state.entries.count < maxValues else {
                return .failure(.tooManyHeld(held: state.entries.count, limit: maxValues))
            }
            state.entries[id] = Entry(owner: owner, data: data)
            state.held += data.count
            return .success(())
        }
        if case .failure(let failure) = stored {
            // The page sees `denied`; the host hears which bound was reached and what to change.
            Self.logger.warning(
                "bytes for a page refused: \(BinaryCoding.error(for: failure).message)",
                metadata: ["origin": "\(owner)"])
            throw failure
        }
        registeredAny.store(true, ordering: .relaxed)
        // Abandoned bytes (the page never fetched them, or went away) are freed at the limit.
        let timeout = limits.byteRedemptionTimeout
        Task.detached { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.remove(id)
        }
        return id
    }

    /// The bytes of `id` for a request from `origin` (the engine's `Origin` header), removed as they are handed
    /// out: an id is good once. Another origin's request leaves them for their owner.
    func redeem(_ id: String, origin: String?) -> Result<Data, Failure> {
        guard let origin = origin?.lowercased(), origin != "null" else { return .failure(.unknown) }
        return state.withLock { state in
            guard let entry = state.entries[id], entry.owner == origin else { return .failure(.unknown) }
            state.entries[id] = nil
            state.held -= entry.data.count
            return .success(entry.data)
        }
    }

    func remove(_ id: String) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return }
            state.held -= entry.data.count
        }
    }

    /// Drops everything (the document they were for went away, or the bridge closed).
    func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.held = 0
        }
    }

    /// 128 random bits as 32 lowercase hex digits: what a page would have to guess.
    static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for _ in 0..<16 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            bytes.append(hex[Int(byte >> 4)])
            bytes.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `id` could be one of ours (32 lowercase hex digits), checked before any lookup.
    static func isWellFormedID(_ id: some StringProtocol) -> Bool {
        id.utf8.count == 32
            && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
