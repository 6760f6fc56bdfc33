import Foundation
import Logging
import Synchronization

/// A message a page posted with `hybrid.post(name, value)`, for a host awaiting ``HybridContainer/messages(_:)``.
public struct PageMessage: Sendable, Hashable {
    public let name: String
    public let value: JSONValue
    /// The security origin of the document that posted it, as the engine reports it (never a URL the page names).
    public let origin: String
    public let isMainFrame: Bool

    /// The value as a `Decodable` type of the host's.
    public func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(value))
    }
}

/// Why ``HybridContainer/messages(_:)`` could not hand out a sequence.
public enum PageMessageError: Error, CustomStringConvertible, Equatable {
    /// The container's configuration lets no page post messages.
    case notAccepted(String)
    /// No message of that name came in time (``HybridContainer/nextMessage(_:timeout:)``).
    case timedOut(String, Duration)
    /// The container closed before a message of that name came.
    case closed(String)

    public var description: String {
        switch self {
        case .notAccepted(let name):
            "no page can post '\(name)': this container accepts no page messages. Set "
                + "ContainerConfiguration.pageMessages to the pages that may post (for example "
                + ".origins(\"app://shop.example\")) when the container is made"
        case .timedOut(let name, let timeout):
            "no page posted '\(name)' within \(timeout): check that the page calls hybrid.post('\(name)', …) and "
                + "that ContainerConfiguration.pageMessages allows its origin (a refused post is logged)"
        case .closed(let name): "the container closed before a page posted '\(name)'"
        }
    }
}

/// Page messages by name, to each listener; kept for a name nobody listens to yet (up to a bound), so a host that
/// subscribes after loading does not miss what the page posted first.
final class PageMessageFanOut: Sendable {
    /// The bridge module pages post to: a name no host module can be confused with.
    static let moduleName = "$messages"
    static let pendingPerName = 64
    static let pendingNames = 32
    /// The largest value one message may carry, as JSON text. Page messages are signals for the host; bulk data goes
    /// through a module's method. Without it a page that posts faster than the host reads (or to a name nobody reads)
    /// would hold 16 MB messages by the thousand.
    static let maxValueBytes = 64 << 10
    /// The longest name, in UTF-8 bytes (as for WebViewJavascriptBridge's handler names).
    static let maxNameBytes = 128

    static func isValidName(_ name: String) -> Bool {
        (1...maxNameBytes).contains(name.utf8.count)
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// The bytes of values kept for names nobody listens to yet, all names together.
    static let maxPendingBytes = 1 << 20
    static let droppedAdvice =
        "a page message was dropped: nobody listens to its name and too many are waiting; call "
        + "container.messages(name) before the page posts"

    private struct State {
        var listeners: [String: [UUID: AsyncStream<PageMessage>.Continuation]] = [:]
        var pending: [String: [PageMessage]] = [:]
        var pendingBytes = 0
        /// Name → the bytes of its kept messages, taken off `pendingBytes` when a listener takes them.
        var pendingSizes: [String: Int] = [:]
        var finished = false
    }
    private let state = Mutex(State())
    let logger = Logger(label: "hybrid.container")

    func stream(_ name: String) -> AsyncStream<PageMessage> {
        let (stream, continuation) = AsyncStream<PageMessage>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        let (pending, finished) = state.withLock { state in
            if !state.finished { state.listeners[name, default: [:]][id] = continuation }
            let pending = state.pending.removeValue(forKey: name) ?? []
            state.pendingBytes -= state.pendingSizes.removeValue(forKey: name) ?? 0
            return (pending, state.finished)
        }
        for message in pending { continuation.yield(message) }
        if finished { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.listeners[name]?.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `message` to the name's listeners, or keeps it for the first one; false when it was dropped (nobody
    /// listens and the bounds on what waits are reached).
    @discardableResult
    func deliver(_ message: PageMessage, size: Int = 0) -> Bool {
        enum Outcome { case delivered([AsyncStream<PageMessage>.Continuation]), kept, dropped }
        let outcome = state.withLock { state -> Outcome in
            if let listeners = state.listeners[message.name], !listeners.isEmpty {
                return .delivered(Array(listeners.values))
            }
            let known = state.pending[message.name] != nil
            guard !state.finished, (known || state.pending.count < Self.pendingNames),
                state.pending[message.name, default: []].count < Self.pendingPerName,
                state.pendingBytes + size <= Self.maxPendingBytes
            else { return .dropped }
            state.pending[message.name, default: []].append(message)
            state.pendingBytes += size
            state.pendingSizes[message.name, default: 0] += size
            return .kept
        }
        switch outcome {
        case .delivered(let listeners): for listener in listeners { listener.yield(message) }
        case .kept: break
        case .dropped:
            logger.warning(
                "\(Self.droppedAdvice)", metadata: ["name": "\(message.name)", "origin": "\(message.origin)"])
        }
        if case .dropped = outcome { return false }
        return true
    }

    /// Bytes of values kept for names nobody listens to yet (for tests and diagnostics).
    var pendingBytes: Int { state.withLock { $0.pendingBytes } }

    /// Ends every listener's sequence (the container closed).
    func finish() {
        let listeners = state.withLock { state in
            state.finished = true
            state.pending.removeAll()
            state.pendingBytes = 0
            state.pendingSizes.removeAll()
            defer { state.listeners.removeAll() }
            return state.listeners.values.flatMap(\.values)
        }
        for listener in listeners { listener.finish() }
    }

    /// The module the page's `hybrid.post` calls, open to the pages `access` names.
    static func module(of fanOut: PageMessageFanOut, access: BridgeAccess) -> BridgeModule {
        // The bridge holds the module, the container the fan-out: no cycle.
        BridgeModule(moduleName, access: access) { module in
            module.method("post") { (posted: Posted, context) in
                // The name reaches the host's log: a control character in it (a newline) could forge log lines.
                guard isValidName(posted.name) else {
                    let advice =
                        "a page message's name is 1 to \(maxNameBytes) bytes of text without control characters"
                    fanOut.logger.warning(
                        "page message refused: \(advice)", metadata: ["origin": "\(context.origin)"])
                    throw BridgeError.badArguments(advice)
                }
                let value = posted.value ?? .null
                let size = Self.size(of: value, limit: maxValueBytes) + posted.name.utf8.count
                guard size <= maxValueBytes else {
                    let advice =
                        "a page message carries at most \(maxValueBytes) bytes of JSON; send larger data through a "
                        + "module's method (it can take Data)"
                    fanOut.logger.warning(
                        "page message refused: \(advice)",
                        metadata: ["origin": "\(context.origin)", "size": "\(size)"])
                    throw BridgeError.badArguments(advice)
                }
                let message = PageMessage(
                    name: posted.name, value: value, origin: context.origin, isMainFrame: context.isMainFrame)
                guard fanOut.deliver(message, size: size) else {
                    throw BridgeError.denied(
                        "the host does not listen for '\(posted.name)' and the messages waiting for it fill the "
                            + "container's bound; the host should call container.messages(name) before the page posts")
                }
                return NoArguments()
            }
        }
    }

    /// About the length of `value` as JSON text (strings and names by their UTF-8, each number as 8 bytes), counted
    /// until it passes `limit`.
    static func size(of value: JSONValue, limit: Int) -> Int {
        var total = 0
        var work = [value]
        while let next = work.popLast(), total <= limit {
            switch next {
            case .null, .bool: total += 5
            case .number: total += 8
            case .string(let text): total += text.utf8.count + 2
            case .array(let items):
                total += 2 + items.count
                work.append(contentsOf: items)
            case .object(let members):
                total += 2
                for (key, member) in members {
                    total += key.utf8.count + 4
                    work.append(member)
                }
            }
        }
        return total
    }

    private struct Posted: Decodable {
        let name: String
        let value: JSONValue?
    }
}
