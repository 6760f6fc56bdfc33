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
    /// No message of that name came in time (``HybridContainer/nextMessage(_:timeout:isolation:)``).
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
    static let droppedAdvice =
        "a page message was dropped: nobody listens to its name and too many are waiting; call "
        + "container.messages(name) before the page posts"

    private struct State {
        var listeners: [String: [UUID: AsyncStream<PageMessage>.Continuation]] = [:]
        var pending: [String: [PageMessage]] = [:]
        var finished = false
    }
    private let state = Mutex(State())
    private let logger = Logger(label: "hybrid.container")

    func stream(_ name: String) -> AsyncStream<PageMessage> {
        let (stream, continuation) = AsyncStream<PageMessage>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        let (pending, finished) = state.withLock { state in
            if !state.finished { state.listeners[name, default: [:]][id] = continuation }
            return (state.pending.removeValue(forKey: name) ?? [], state.finished)
        }
        for message in pending { continuation.yield(message) }
        if finished { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.listeners[name]?.removeValue(forKey: id) }
        }
        return stream
    }

    func deliver(_ message: PageMessage) {
        enum Outcome { case delivered([AsyncStream<PageMessage>.Continuation]), kept, dropped }
        let outcome = state.withLock { state -> Outcome in
            if let listeners = state.listeners[message.name], !listeners.isEmpty {
                return .delivered(Array(listeners.values))
            }
            let known = state.pending[message.name] != nil
            guard !state.finished, (known || state.pending.count < Self.pendingNames),
                state.pending[message.name, default: []].count < Self.pendingPerName
            else { return .dropped }
            state.pending[message.name, default: []].append(message)
            return .kept
        }
        switch outcome {
        case .delivered(let listeners): for listener in listeners { listener.yield(message) }
        case .kept: break
        case .dropped:
            logger.warning(
                "\(Self.droppedAdvice)", metadata: ["name": "\(message.name)", "origin": "\(message.origin)"])
        }
    }

    /// Ends every listener's sequence (the container closed).
    func finish() {
        let listeners = state.withLock { state in
            state.finished = true
            state.pending.removeAll()
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
                fanOut.deliver(
                    PageMessage(
                        name: posted.name, value: posted.value ?? .null, origin: context.origin,
                        isMainFrame: context.isMainFrame))
                return NoArguments()
            }
        }
    }

    private struct Posted: Decodable {
        let name: String
        let value: JSONValue?
    }
}
