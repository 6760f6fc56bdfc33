/// The order every engine's scheme-task API demands, kept once for all adapters.
///
/// WKURLSchemeTask raises an Objective-C exception (the app dies) for a call out of order: data before a
/// response, a second response, finishing without a response, anything after the task finished, failed or was
/// stopped. WebKitGTK's `WebKitURISchemeRequest` takes one response and then nothing. Handlers are written
/// against the port, whose contract is softer ("calls after the task ended are ignored"), so each adapter asks
/// this guard before it touches the engine and drops, or turns into a failure, what the engine would not take.
public struct SchemeTaskOrder: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// Started; no response yet.
        case awaitingResponse
        /// The response went out; data may follow.
        case responding
        /// Finished or failed by the handler.
        case ended
        /// Stopped by the engine (navigation away, view closed).
        case stopped
    }

    /// What a handler asked for.
    public enum Call: String, Sendable, Equatable {
        case respond, send, finish, fail
    }

    public private(set) var state: State = .awaitingResponse

    public init() {}

    /// Whether the task still accepts calls from the handler.
    public var isOpen: Bool { state == .awaitingResponse || state == .responding }

    /// Records `call` when it is allowed in the current state and returns nil; otherwise leaves the state as it
    /// was and returns why the engine would refuse it.
    public mutating func admit(_ call: Call) -> SchemeTaskOrderViolation? {
        switch (state, call) {
        case (.stopped, _): return .afterStop(call)
        case (.ended, _): return .afterEnd(call)
        case (.awaitingResponse, .respond):
            state = .responding
            return nil
        case (.responding, .respond): return .secondResponse
        case (.awaitingResponse, .send): return .dataBeforeResponse
        case (.responding, .send): return nil
        case (.awaitingResponse, .finish): return .finishWithoutResponse
        case (.responding, .finish), (_, .fail):
            state = .ended
            return nil
        }
    }

    /// The engine stopped the task. Returns whether it was still open (only then does the handler need telling).
    @discardableResult
    public mutating func stop() -> Bool {
        let wasOpen = isOpen
        if wasOpen { state = .stopped }
        return wasOpen
    }
}

/// A scheme-task call the engine would refuse, reported instead of crashing the app.
public enum SchemeTaskOrderViolation: Error, Sendable, Equatable, CustomStringConvertible {
    case dataBeforeResponse
    case secondResponse
    case finishWithoutResponse
    case afterEnd(SchemeTaskOrder.Call)
    case afterStop(SchemeTaskOrder.Call)

    public var description: String {
        switch self {
        case .dataBeforeResponse:
            "data sent before a response; call respond(_:) first (the data was dropped)"
        case .secondResponse:
            "a second response for one request; respond(_:) once (the later response was dropped)"
        case .finishWithoutResponse:
            "finish() without a response; call respond(_:) first or fail(_:) (the request was failed instead)"
        case .afterEnd(let call):
            "\(call.rawValue) after the task finished or failed (ignored); stop calling a task once it ended"
        case .afterStop(let call):
            "\(call.rawValue) after the engine stopped the task (ignored); stop(_:) means the page no longer wants it"
        }
    }
}
