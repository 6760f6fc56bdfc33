import HybridKit
import Logging
import NIOCore
import Synchronization

/// The connections one body channel holds, and which one goes when a new one comes and every slot is taken.
///
/// Any local process can connect to the channel's port, so the number of connections it holds is bounded whatever
/// that process does. When every slot is taken, a connection waiting for a request head (still in its head, or
/// idle between requests) is dropped to make room, the one waiting longest first: closing the new one instead
/// would let a process that keeps the slots full with slow heads starve every real upload.
///
/// A real upload's head comes at once after connecting (the engine writes it whole), so a newcomer whose whole head
/// is already waiting in the socket is "ready": it may drop any connection waiting for a head, half-sent heads
/// first. A newcomer that is not ready may only drop a half-sent head that has waited at least ``graceForHeads``
/// (a real head sent a moment after connecting gets that long). Otherwise it gets one more look: it is held unread
/// until its first bytes arrive (``lookAgain``), because a client that connects and then writes (the engine's
/// network process does) is often accepted before its head is in the socket. Its bytes decide it as they would
/// have at accept time, and it is never held for another look. So a process that
/// reconnects as fast as it is dropped (tens of thousands a second were measured) cannot push out a real upload
/// before its head is read, and costs the channel a close per connection, not an event loop's work; sending whole
/// heads instead gets it nothing, since every head without a page's key is refused and closed at once. Connections carrying an upload (which
/// passed the key, origin and reservation checks) are never dropped for a newcomer; when no connection may be
/// dropped, the new one is closed at once.
///
/// A dropped connection counts until it is closed, up to as many again as the slots (closing happens on the
/// connection's event loop, which a flood keeps busy), and so does one held for another look: the channel never
/// holds more than `2 × capacity` descriptors of connections, and new ones are closed at once past that.
final class BodyChannelGate: Sendable {
    struct Slot: Hashable, Sendable {
        fileprivate let number: UInt64
    }

    enum Admission {
        /// Serve the connection; close `evicting` (if any) to make room.
        case admitted(Slot, evicting: (any Channel)?)
        /// Nothing is in its socket yet and nothing may be dropped for it: hold it unread and decide again once it
        /// is readable (``admit(ready:looked:)`` with `looked`), or close it and call ``lookAbandoned()``.
        case lookAgain
        /// Close the connection at once, unread.
        case refused
    }

    /// What a connection is doing, as far as who goes first is concerned.
    private enum Phase {
        /// Waiting for (the rest of) a request head since `since`: the first to go when room is needed. `ready`: its
        /// whole first head was in the socket when it was accepted.
        case waiting(since: ContinuousClock.Instant, ready: Bool)
        /// Carrying an upload: never dropped for a newcomer.
        case busy
        /// Dropped; counted until its connection is closed.
        case evicting
    }

    private struct Entry {
        var channel: (any Channel)?
        var phase: Phase
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextNumber: UInt64 = 0
        var serving = 0
        /// Connections held unread for another look (``Admission/lookAgain``): descriptors too.
        var looking = 0
        var dropLog = RateLimitedLog()
    }

    let capacity: Int
    private let state = Mutex(State())
    /// How long a half-sent head is safe from newcomers that are not ready either.
    static let graceForHeads: Duration = .seconds(1)

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Connections held right now (served, being closed, or held for another look), for tests and diagnostics.
    var held: Int { state.withLock { $0.entries.count + $0.looking } }

    /// A connection was accepted (`ready`: with its whole head already sent): whether to serve it, and which
    /// connection to close to make room. `looked`: it was held for another look and is readable now; it is
    /// decided for good this time.
    func admit(ready: Bool, looked: Bool = false) -> Admission {
        let (admission, line) = state.withLock { state -> (Admission, String?) in
            if looked { state.looking -= 1 }
            let number = state.nextNumber
            state.nextNumber += 1
            var evicting: (any Channel)?
            let now = ContinuousClock.now
            if state.serving >= capacity {
                let halfSent = Self.longestWaiting(ready: false, in: state.entries)
                let victim =
                    ready
                    ? halfSent.map(\.number) ?? Self.longestWaiting(ready: true, in: state.entries)?.number
                    : halfSent.flatMap { now - $0.since >= Self.graceForHeads ? $0.number : nil }
                let descriptors = state.entries.count + state.looking
                guard descriptors < 2 * capacity, let oldest = victim else {
                    if !ready, !looked, descriptors < 2 * capacity {
                        state.looking += 1
                        return (.lookAgain, nil)
                    }
                    return (.refused, state.dropLog.note(.refused, now: .now))
                }
                evicting = state.entries[oldest]?.channel
                state.entries[oldest]?.phase = .evicting
                state.serving -= 1
            }
            state.entries[number] = Entry(channel: nil, phase: .waiting(since: now, ready: ready))
            state.serving += 1
            let line = evicting == nil ? nil : state.dropLog.note(.evicted, now: .now)
            return (.admitted(Slot(number: number), evicting: evicting), line)
        }
        if let line { Self.log(line, capacity: capacity) }
        return admission
    }

    /// A connection held for another look was closed unread: it waited too long or made room for a newer one, or
    /// the channel stopped (`stopping`, not worth a line).
    func lookAbandoned(stopping: Bool) {
        let line = state.withLock { state in
            state.looking -= 1
            return stopping ? nil : state.dropLog.note(.unreadAfterLook, now: .now)
        }
        if let line { Self.log(line, capacity: capacity) }
    }

    /// The connection's channel, once it exists. False when it was dropped meanwhile: close it.
    func attach(_ slot: Slot, _ channel: any Channel) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[slot.number] else { return false }
            if case .evicting = entry.phase { return false }
            state.entries[slot.number]?.channel = channel
            return true
        }
    }

    /// The connection waits for its next request head: it may be dropped for any newcomer from now on.
    func waiting(_ slot: Slot) {
        state.withLock { state in
            guard let entry = state.entries[slot.number] else { return }
            if case .evicting = entry.phase { return }
            state.entries[slot.number]?.phase = .waiting(since: .now, ready: false)
        }
    }

    /// The connection's head passed: it carries an upload now and is kept. False when it was already dropped (the
    /// drop and the head crossed): refuse the upload before opening it.
    func busy(_ slot: Slot) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[slot.number] else { return false }
            if case .evicting = entry.phase { return false }
            state.entries[slot.number]?.phase = .busy
            return true
        }
    }

    /// The connection is closed: its slot is free.
    func remove(_ slot: Slot) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: slot.number) else { return }
            if case .evicting = entry.phase { return }
            state.serving -= 1
        }
    }

    /// A connection's head did not come in time.
    func headTimedOut(seconds: Int) {
        if let line = state.withLock({ $0.dropLog.note(.headDeadline, now: .now) }) {
            Logger(label: "hybrid.network").notice(
                "\(line)",
                metadata: [
                    "headTimeout": "\(seconds) s",
                    "change": "raise LoopbackBodyChannel.Limits.headTimeout if real uploads hit this",
                ])
        }
    }

    private static func longestWaiting(
        ready: Bool, in entries: [UInt64: Entry]
    ) -> (number: UInt64, since: ContinuousClock.Instant)? {
        var oldest: (number: UInt64, since: ContinuousClock.Instant)?
        for (number, entry) in entries {
            guard case .waiting(let since, ready) = entry.phase else { continue }
            if oldest.map({ since < $0.since }) ?? true { oldest = (number, since) }
        }
        return oldest
    }

    private static func log(_ line: String, capacity: Int) {
        // Made per line, not once per process: a logger keeps the backend it was made with, and the app may
        // bootstrap its backend after the channel started.
        Logger(label: "hybrid.network").notice(
            "\(line)",
            metadata: [
                "maxConnections": "\(capacity)",
                "change":
                    "raise LoopbackBodyChannel.Limits.maxConnections if real uploads hit this; else a local process is flooding the port",
            ])
    }
}

/// At most one log line per reason per `interval`, saying how many drops it stands for: a flood of thousands of
/// connections a second must not flood the log too.
struct RateLimitedLog {
    enum Reason: String, CaseIterable {
        case evicted = "closed a connection still waiting for its request head to make room"
        case refused = "closed a new connection at once: every slot holds an upload or a head that is ahead of it"
        case headDeadline = "closed a connection whose request head did not arrive in time"
        case unreadAfterLook =
            "closed a new connection that sent nothing while it was held for its head: every slot holds an upload or a head that is ahead of it"
    }

    var interval: Duration = .seconds(10)
    private var lastLine: [Reason: ContinuousClock.Instant] = [:]
    private var unreported: [Reason: Int] = [:]

    /// The line to log for this drop, or nil when one was logged for the same reason less than `interval` ago
    /// (the drop is then counted into the next line).
    mutating func note(_ reason: Reason, now: ContinuousClock.Instant) -> String? {
        let count = unreported[reason, default: 0] + 1
        if let last = lastLine[reason], now - last < interval {
            unreported[reason] = count
            return nil
        }
        lastLine[reason] = now
        unreported[reason] = 0
        return "body channel \(reason.rawValue) (\(count) since the last such line)"
    }
}
