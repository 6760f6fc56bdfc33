import CoreMetrics
import Foundation
import Metrics
import Synchronization

/// Who may use a stored body: the origin of the page that uploaded it, through one scheme handler (one view).
/// A body is only ever re-attached to a request from the same origin through the same handler.
public struct BodyOwner: Sendable, Hashable {
    public let origin: String
    public let scope: ObjectIdentifier

    public init(origin: String, scope: ObjectIdentifier) {
        self.origin = origin
        self.scope = scope
    }
}

/// How much the store holds at most, and for how long.
public struct BodyStoreLimits: Sendable, Equatable {
    /// Largest single body.
    public var maxBodyBytes: Int
    /// All bodies together, complete or still uploading.
    public var maxTotalBytes: Int
    public var maxEntries: Int
    /// What one origin's pages in one view may hold of `maxTotalBytes` and `maxEntries`: a frame of one origin that
    /// keeps uploading cannot take the whole store from the others for the bodies' time to live. By default half
    /// of each (at least one body of `maxBodyBytes`).
    public var maxBytesPerOrigin: Int
    public var maxEntriesPerOrigin: Int
    /// A body not consumed within this time is dropped.
    public var timeToLive: Duration

    public init(
        maxBodyBytes: Int = 64 << 20, maxTotalBytes: Int = 128 << 20, maxEntries: Int = 256,
        maxBytesPerOrigin: Int? = nil, maxEntriesPerOrigin: Int? = nil, timeToLive: Duration = .seconds(60)
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.maxTotalBytes = maxTotalBytes
        self.maxEntries = maxEntries
        self.maxBytesPerOrigin = maxBytesPerOrigin ?? max(maxBodyBytes, maxTotalBytes / 2)
        self.maxEntriesPerOrigin = maxEntriesPerOrigin ?? max(1, maxEntries / 2)
        self.timeToLive = timeToLive
    }
}

/// Why the store refused. Each message says what the page or the host can do about it.
public enum BodyStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case bodyTooLarge(size: Int, limit: Int)
    case storeFull(limit: Int)
    case tooManyBodies(limit: Int)
    /// The page's origin holds its share of the store already (``BodyStoreLimits/maxBytesPerOrigin`` and
    /// ``BodyStoreLimits/maxEntriesPerOrigin``).
    case originQuotaFull(origin: String, bytes: Int, entries: Int)
    /// Unknown, expired, already consumed, forged, or owned by another page: indistinguishable on purpose, so
    /// a page cannot probe for other pages' ids.
    case unknownBody
    case incomplete(received: Int, expected: Int)
    case badChunk(String)

    public var description: String {
        switch self {
        case .bodyTooLarge(let size, let limit):
            "the request body is \(size) bytes, more than the limit of \(limit) bytes for intercepted requests"
        case .storeFull(let limit):
            "request bodies waiting to be sent already take the limit of \(limit) bytes; retry when requests finish"
        case .tooManyBodies(let limit):
            "\(limit) request bodies are already waiting to be sent; retry when requests finish"
        case .originQuotaFull(let origin, let bytes, let entries):
            "pages of \(origin) already have request bodies waiting to be sent up to their share of the store "
                + "(\(bytes) bytes, \(entries) bodies); retry when their requests finish, or raise "
                + "BodyStoreLimits.maxBytesPerOrigin / maxEntriesPerOrigin"
        case .unknownBody:
            "no such request body for this page: it expired, was already sent, or belongs to another page"
        case .incomplete(let received, let expected):
            "the request body is incomplete: \(received) of \(expected) bytes were uploaded"
        case .badChunk(let why):
            "bad body chunk: \(why)"
        }
    }
}

/// Request bodies handed over by the page before the request that carries them, by random 128-bit id.
///
/// Bounded by bytes and count, entries expire, and taking a body removes it. Thread-safe.
public final class BodyStore: Sendable {
    public struct Body: Sendable, Equatable {
        public let data: Data
        /// The Content-Type the body was serialized with (multipart boundary included), if any.
        public let contentType: String?
    }

    private struct Entry {
        let owner: BodyOwner
        let contentType: String?
        let began: ContinuousClock.Instant
        let expires: ContinuousClock.Instant
        let buffer: BodyBuffer
        /// A request streams this body while it is still uploading (``claim(_:owner:)``): the id can no longer be
        /// taken or claimed, and the entry leaves the store when the last chunk lands.
        var claimed = false
        /// The body channel is sending it (``openChannelUpload(_:owner:)``): a second channel upload is refused.
        var channelOpen = false
        var expected: Int { buffer.size }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var totalBytes = 0
        /// Bytes and bodies each owner (an origin in one view) holds, for the per-origin share.
        var held: [BodyOwner: (bytes: Int, entries: Int)] = [:]

        mutating func add(_ id: String, _ entry: Entry) {
            entries[id] = entry
            totalBytes += entry.expected
            let before = held[entry.owner] ?? (0, 0)
            held[entry.owner] = (before.bytes + entry.expected, before.entries + 1)
        }

        /// Removes the entry `id` names (the caller looked it up) and what it held.
        mutating func remove(_ id: String, _ entry: Entry) {
            entries[id] = nil
            totalBytes -= entry.expected
            let before = held[entry.owner] ?? (0, 0)
            held[entry.owner] = before.entries > 1 ? (before.bytes - entry.expected, before.entries - 1) : nil
        }
    }

    public let limits: BodyStoreLimits
    private let stored = Counter(label: HybridMetrics.bodies, dimensions: [("event", "stored")])
    private let consumed = Counter(label: HybridMetrics.bodies, dimensions: [("event", "consumed")])
    private let refused = Counter(label: HybridMetrics.bodies, dimensions: [("event", "refused")])
    private let uploadDuration = CoreMetrics.Timer(label: HybridMetrics.bodyUploadDuration)
    private let state = Mutex(State())
    private let now: @Sendable () -> ContinuousClock.Instant

    public init(
        limits: BodyStoreLimits = BodyStoreLimits(), now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.limits = limits
        self.now = now
    }

    public var count: Int { state.withLock { $0.entries.count } }
    /// Bytes reserved by bodies in the store (their announced sizes).
    public var reservedBytes: Int { state.withLock { $0.totalBytes } }

    /// Starts a body of `size` bytes for `owner`, reserving its size up front so a page cannot grow the store past
    /// its bound chunk by chunk. Returns the new id.
    public func begin(size: Int, contentType: String?, owner: BodyOwner) throws(BodyStoreError) -> String {
        guard size >= 0, size <= limits.maxBodyBytes else {
            refused.increment()
            throw size < 0 ? .badChunk("negative size") : .bodyTooLarge(size: size, limit: limits.maxBodyBytes)
        }
        let id = Self.randomID()
        let instant = now()
        let result: Result<Void, BodyStoreError> = state.withLock { state in
            Self.expire(&state, at: instant)
            guard state.entries.count < limits.maxEntries else {
                return .failure(.tooManyBodies(limit: limits.maxEntries))
            }
            guard state.totalBytes + size <= limits.maxTotalBytes else {
                return .failure(.storeFull(limit: limits.maxTotalBytes))
            }
            let held = state.held[owner] ?? (0, 0)
            guard held.entries < limits.maxEntriesPerOrigin, held.bytes + size <= limits.maxBytesPerOrigin else {
                return .failure(
                    .originQuotaFull(
                        origin: owner.origin, bytes: limits.maxBytesPerOrigin, entries: limits.maxEntriesPerOrigin))
            }
            state.add(
                id,
                Entry(
                    owner: owner, contentType: contentType, began: instant, expires: instant + limits.timeToLive,
                    buffer: BodyBuffer(size: size)))
            return .success(())
        }
        do { try result.get() } catch {
            refused.increment()
            throw error
        }
        stored.increment()
        return id
    }

    /// Stores `chunk` at `offset`. Chunks may arrive in any order (the page keeps several in flight), but never
    /// overlap bytes already received nor reach past the announced size. Returns the bytes received so far.
    @discardableResult
    public func append(_ chunk: Data, at offset: Int, to id: String, owner: BodyOwner) throws(BodyStoreError) -> Int {
        let result: Result<Int, BodyStoreError> = chunk.withUnsafeBytes { bytes in
            Result { () throws(BodyStoreError) in try append(bytes, at: offset, to: id, owner: owner) }
        }
        return try result.get()
    }

    /// ``append(_:at:to:owner:)-(Data,_,_,_)`` for bytes a server holds (the body channel's network buffers), without a `Data`.
    @discardableResult
    public func append(
        _ chunk: UnsafeRawBufferPointer, at offset: Int, to id: String, owner: BodyOwner
    ) throws(BodyStoreError) -> Int {
        let instant = now()
        let found: Entry? = state.withLock { state in
            Self.expire(&state, at: instant)
            guard let entry = state.entries[id], entry.owner == owner else { return nil }
            return entry
        }
        guard let entry = found else {
            refused.increment()
            throw .unknownBody
        }
        // The copy happens outside the store's lock: other pages' chunks need not wait for it.
        let received: Int
        do {
            received = try entry.buffer.write(chunk, at: offset)
        } catch {
            refused.increment()
            throw error
        }
        if received == entry.expected {
            uploadDuration.recordNanoseconds(Self.nanoseconds(now() - entry.began))
            // A request streaming it has every byte now: the body is consumed. (Checked under the lock: the
            // claim may have come while this chunk was being copied.)
            removeIfClaimed(id, holding: entry.buffer)
        }
        return received
    }

    /// Whether `origin` reserved a body that nothing was sent for yet (`id`: that body): what the body channel
    /// answers a CORS preflight for (a preflight carries neither key nor id).
    public func awaitsChannelUpload(_ id: String? = nil, origin: String) -> Bool {
        let instant = now()
        return state.withLock { state in
            Self.expire(&state, at: instant)
            if let id { return state.entries[id].map { Self.awaitsUpload($0, from: origin) } ?? false }
            return state.entries.values.contains { Self.awaitsUpload($0, from: origin) }
        }
    }

    private static func awaitsUpload(_ entry: Entry, from origin: String) -> Bool {
        entry.owner.origin == origin && !entry.channelOpen && entry.buffer.received == 0 && entry.expected > 0
    }

    /// Starts the body channel's upload of a reserved body: it must be `owner`'s, have received nothing and have no
    /// channel upload already. Returns the size the upload must have. The bytes then come through
    /// ``append(_:at:to:owner:)-(UnsafeRawBufferPointer,_,_,_)`` from offset 0.
    public func openChannelUpload(_ id: String, owner: BodyOwner) throws(BodyStoreError) -> Int {
        let instant = now()
        let result: Result<Int, BodyStoreError> = state.withLock { state in
            Self.expire(&state, at: instant)
            guard var entry = state.entries[id], entry.owner == owner else { return .failure(.unknownBody) }
            guard !entry.channelOpen, entry.buffer.received == 0 else {
                return .failure(.badChunk("this body is already being uploaded"))
            }
            entry.channelOpen = true
            state.entries[id] = entry
            return .success(entry.expected)
        }
        do { return try result.get() } catch {
            refused.increment()
            throw error
        }
    }

    /// Removes and returns a complete body. The id is spent whether or not this succeeds for a complete body.
    public func take(_ id: String, owner: BodyOwner) throws(BodyStoreError) -> Body {
        try spend(id, owner: owner) { state, entry in
            state.remove(id, entry)
            guard let data = entry.buffer.completeData else {
                entry.buffer.fail(.incomplete(received: entry.buffer.received, expected: entry.expected))
                return .failure(.incomplete(received: entry.buffer.received, expected: entry.expected))
            }
            return .success(Body(data: data, contentType: entry.contentType))
        }
    }

    /// Hands a body to a request that streams it as it arrives (the native proxy starts sending while the page is
    /// still uploading). The id is spent: it cannot be taken or claimed again. A complete body leaves the store at
    /// once; an incomplete one when its last chunk lands, or fails the stream when it is discarded or expires.
    /// Dropping the returned body before it completed (the request ended) discards the rest of the upload.
    public func claim(_ id: String, owner: BodyOwner) throws(BodyStoreError) -> StoredBody {
        try spend(id, owner: owner) { state, entry in
            if entry.buffer.isComplete {
                state.remove(id, entry)
            } else {
                var claimed = entry
                claimed.claimed = true
                state.entries[id] = claimed
            }
            let buffer = entry.buffer
            return .success(
                StoredBody(buffer: buffer, contentType: entry.contentType) { [weak self] in
                    self?.abandon(id, ifHolding: buffer)
                })
        }
    }

    /// What `take` and `claim` share: under the lock, expired bodies go and the id must name a body of `owner`
    /// that nobody claimed (any other case is the same `unknownBody`, so ids cannot be probed); `use` spends it.
    /// Counted as consumed or refused.
    private func spend<Spent>(
        _ id: String, owner: BodyOwner,
        _ use: (inout State, Entry) -> Result<Spent, BodyStoreError>
    ) throws(BodyStoreError) -> Spent {
        let instant = now()
        let result: Result<Spent, BodyStoreError> = state.withLock { state in
            Self.expire(&state, at: instant)
            guard let entry = state.entries[id], entry.owner == owner, !entry.claimed else {
                return .failure(.unknownBody)
            }
            return use(&state, entry)
        }
        do {
            let spent = try result.get()
            consumed.increment()
            return spent
        } catch {
            refused.increment()
            throw error
        }
    }

    /// Drops a body (an upload the page abandoned). Unknown ids are ignored.
    public func discard(_ id: String, owner: BodyOwner) {
        state.withLock { state in
            guard let entry = state.entries[id], entry.owner == owner else { return }
            Self.drop(id, entry, from: &state)
        }
    }

    /// Drops every body of `scope` (its view closed).
    public func discardAll(scope: ObjectIdentifier) {
        state.withLock { state in
            for (id, entry) in state.entries where entry.owner.scope == scope {
                Self.drop(id, entry, from: &state)
            }
        }
    }

    private func removeIfClaimed(_ id: String, holding buffer: BodyBuffer) {
        state.withLock { state in
            guard let entry = state.entries[id], entry.buffer === buffer, entry.claimed else { return }
            state.remove(id, entry)
        }
    }

    /// The request streaming a claimed body ended before the body completed: later chunks are refused.
    private func abandon(_ id: String, ifHolding buffer: BodyBuffer) {
        state.withLock { state in
            guard let entry = state.entries[id], entry.buffer === buffer else { return }
            Self.drop(id, entry, from: &state)
        }
    }

    /// Removes an entry before it was consumed; a request streaming it gets a typed failure.
    private static func drop(_ id: String, _ entry: Entry, from state: inout State) {
        state.remove(id, entry)
        entry.buffer.fail(.incomplete(received: entry.buffer.received, expected: entry.expected))
    }

    private static func expire(_ state: inout State, at instant: ContinuousClock.Instant) {
        for (id, entry) in state.entries where entry.expires <= instant {
            drop(id, entry, from: &state)
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// 128 random bits from the system's generator, as 32 hex digits.
    public static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return String(format: "%016llx%016llx", high, low)
    }

    static func isWellFormedID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
