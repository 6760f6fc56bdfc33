import Foundation
import HybridCookies
import Synchronization

/// What each frame's `document.cookie` copy holds, so a response that passes through native code reaches the page
/// only once the page's copy shows the cookies it set (see ``CookieDeliveryGate``).
///
/// The shim's long poll is the signal: a `read` names the string the frame holds; native answers when the jar's
/// string for the frame differs; the frame's next `read` names what it received, which is the acknowledgement. A
/// frame is *behind* while its pending `read` names a string the jar has moved past (it is about to be answered), or
/// from an answer until its next `read`. Frames are keyed by origin and a per-document token the shim picks.
///
/// A frame can only delay responses, never see or change anything: a waiter is released after ``ackTimeout``
/// whatever the frames do, a frame that does not acknowledge within it is dropped, a frame whose acknowledgement
/// names another string than it was sent is no longer waited for, and at most ``maxFrames`` are followed (the main
/// frame always).
public final class DocumentCookieDelivery: Sendable {
    public static let maxFrames = 32
    /// The longest a response waits for pages to see its cookies (one bridge round trip takes milliseconds).
    public let ackTimeout: Duration

    private struct Frame {
        let url: URL
        /// The string the frame holds (its pending read's), or was last sent.
        var known: String?
        /// Set while an answer is on its way to the frame and not yet acknowledged.
        var answeredAt: ContinuousClock.Instant?
        let isMainFrame: Bool
        /// What the frame's `document.cookie` shows of the jar: nothing yet reads as the empty string.
        var shown: String { known ?? "" }
    }

    private struct State {
        var frames: [String: Frame] = [:]
        /// Frames that acknowledged something they were not sent: not waited for again.
        var ignored: Set<String> = []
        var waiters: [UUID: @Sendable () -> Void] = [:]
    }

    private let jar: CookieJar
    private let state = Mutex(State())

    public init(jar: CookieJar, ackTimeout: Duration = .milliseconds(500)) {
        self.jar = jar
        self.ackTimeout = ackTimeout
    }

    /// A frame's `read` arrived: it holds `known` (nil: nothing yet). The main frame is always followed: when
    /// subframes fill every place, one of them gives its place up.
    func pollStarted(_ frame: String, url: URL, known: String?, isMainFrame: Bool = false) {
        state.withLock { state in
            guard !state.ignored.contains(frame) else { return }
            // An acknowledgement names what the frame was sent, or what a write of its own since answered (the
            // jar's string now); anything else is a frame not worth waiting for.
            if let previous = state.frames[frame], previous.answeredAt != nil, previous.known != known,
                known != jar.documentCookie(for: previous.url)
            {
                state.frames[frame] = nil
                state.ignored.insert(frame)
                return
            }
            if state.frames[frame] == nil, state.frames.count >= Self.maxFrames {
                guard isMainFrame, let evicted = state.frames.first(where: { !$0.value.isMainFrame })?.key else {
                    return
                }
                state.frames[evicted] = nil
            }
            state.frames[frame] = Frame(url: url, known: known, answeredAt: nil, isMainFrame: isMainFrame)
        }
        releaseIfDelivered()
    }

    /// The frame's `read` was answered with `cookie`: it holds that once the answer arrives. An answer that
    /// changes nothing the frame shows (a first read, holding nothing yet, answered with an empty string) needs no
    /// acknowledgement: waiting for one would hold a cold view's first responses for a bridge round trip.
    func pollAnswered(_ frame: String, with cookie: String) {
        state.withLock { state in
            guard let shown = state.frames[frame].map(\.shown) else { return }
            state.frames[frame]?.known = cookie
            if cookie != shown { state.frames[frame]?.answeredAt = .now }
        }
    }

    /// The frame's `read` was cancelled (it navigated, the page closed): it holds nothing any more.
    func frameGone(_ frame: String) {
        _ = state.withLock { $0.frames.removeValue(forKey: frame) }
        releaseIfDelivered()
    }

    /// Calls `then` once no frame is behind the jar, or after ``ackTimeout``; at once when none is.
    public func whenDelivered(_ then: @escaping @Sendable () -> Void) {
        let id = UUID()
        let waiting = state.withLock { state -> Bool in
            guard behind(&state) else { return false }
            state.waiters[id] = then
            return true
        }
        guard waiting else { return then() }
        let timeout = ackTimeout
        Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.state.withLock { $0.waiters.removeValue(forKey: id) }?()
        }
    }

    private func releaseIfDelivered() {
        let released = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.waiters.isEmpty, !behind(&state) else { return [] }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for then in released { then() }
    }

    /// Whether a frame is behind; drops frames that did not acknowledge in time.
    private func behind(_ state: inout State) -> Bool {
        let now = ContinuousClock.now
        state.frames = state.frames.filter { _, frame in
            frame.answeredAt.map { now - $0 < ackTimeout } ?? true
        }
        return state.frames.values.contains { frame in
            frame.answeredAt != nil || frame.shown != jar.documentCookie(for: frame.url)
        }
    }
}

/// Where a page's native responses wait for its `document.cookie` (``DocumentCookieDelivery``): filled in by the
/// feature that installs the shim, read by the network paths the package handler and the proxy take. Without a
/// shim nothing waits.
public final class CookieDeliveryGate: Sendable {
    private let delivery = Mutex<DocumentCookieDelivery?>(nil)

    public init() {}

    /// Responses wait for `delivery`'s frames from now on.
    public func attach(_ delivery: DocumentCookieDelivery) { self.delivery.withLock { $0 = delivery } }

    public func whenDelivered(_ then: @escaping @Sendable () -> Void) {
        guard let delivery = delivery.withLock({ $0 }) else { return then() }
        delivery.whenDelivered(then)
    }
}
