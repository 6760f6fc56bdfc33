/// One call of a native method, resolved and allowed: the method, what it is called with, where it runs (its
/// lane) and for how long (its limit).
///
/// Calls, synchronous calls and streams all run their method through this value, so how a method's body meets
/// its module's execution is written once (``work(on:)``); they differ only in how they answer (see
/// ``BridgeEngine/Answer``).
struct Invocation: Sendable {
    /// Where a method runs, as its module says (``BridgeModule/execution``).
    enum Lane: Sendable {
        /// The bridge's executor, which is the engine's: methods there may touch the web view.
        case engine
        /// Off it: methods that would otherwise hold the engine's loop.
        case background
    }

    /// The method as something to run later, on its lane.
    enum Work: Sendable {
        /// A method with one result.
        case value(@Sendable () async throws -> String)
        /// A stream method: its elements go through the sink.
        case stream(@Sendable (BridgeStreamSink) async throws -> Void)
    }

    typealias SyncBody = @Sendable (Substring.UTF8View, CallContext) throws -> String

    let target: ModuleRegistry.Target
    let context: CallContext
    let payload: Substring.UTF8View
    let origin: CallOrigin

    var lane: Lane {
        switch target.module.execution {
        case .engineThread: .engine
        case .background: .background
        }
    }

    /// The body of a synchronous method on the engine's lane: the caller is already there, so it runs it now,
    /// inline (no task, no hop: the cheapest round trip, which a call answers before its post's handler returns).
    /// Nil for every other method.
    var inlineBody: SyncBody? {
        guard case .sync(let body) = target.method.body, case .engineThread = target.module.execution else {
            return nil
        }
        return body
    }

    /// The method's limit: its own timeout, else the bridge's `fallback` for this kind of call, and where it came
    /// from (for the log line that says which setting to change).
    func limit(fallback: Duration?, source: CallDeadline.Source) -> (Duration?, CallDeadline.Source) {
        guard let own = target.method.timeout else { return (fallback, source) }
        return (own, .method)
    }

    /// ``limit(fallback:source:)`` before there is an invocation (a binary call waiting for its bytes).
    static func limit(of target: ModuleRegistry.Target, fallback: Duration?) -> (Duration?, CallDeadline.Source) {
        guard let own = target.method.timeout else { return (fallback, .callTimeout) }
        return (own, .method)
    }

    /// The method as work on its lane: the one place where a body (sync, async, stream) meets its module's
    /// execution. Work on the engine's lane hops to `bridge` (whose executor is the engine's) to run; work on
    /// the background lane is `@concurrent`, so it never runs there. The work holds its arguments, and `lease`,
    /// which counts them against ``BridgeLimits/maxPendingArgumentBytes``, until it ends; they are its own copy
    /// when the post they came in is much larger (a slice would keep the whole post alive).
    func work(on bridge: BridgeEngine, lease: ArgumentBudget.Lease) throws(BridgeError) -> Work {
        let (payload, context) = (Self.ownCopy(of: self.payload), self.context)
        switch (target.method.body, lane) {
        case (.sync(let body), .engine):
            return .value { try await bridge.runHere(body, payload, context, lease) }
        case (.sync(let body), .background):
            return .value { @concurrent in try withExtendedLifetime(lease) { try body(payload, context) } }
        case (.async(let body), .engine):
            return .value { try await bridge.runHere(body, payload, context, lease) }
        case (.async(let body), .background):
            return .value { @concurrent in
                defer { withExtendedLifetime(lease) {} }
                return try await body(payload, context)
            }
        case (.stream(let body), .engine):
            return .stream { sink in try await bridge.runHere(body, payload, context, sink, lease) }
        case (.stream(let body), .background):
            return .stream { @concurrent sink in
                defer { withExtendedLifetime(lease) {} }
                try await body(payload, context, sink)
            }
        case (.forward, _):
            // resolve() follows forwards to the end; reaching one here is a registry bug.
            throw .internalError("unresolved forward")
        }
    }
}

extension Invocation {
    /// `payload` as a string of its own when the post it is a slice of is much larger than it.
    static func ownCopy(of payload: Substring.UTF8View) -> Substring.UTF8View {
        let slice = Substring(payload)
        guard slice.base.utf8.count > payload.count * 2 + 4096 else { return payload }
        return Substring(String(slice)).utf8
    }
}

extension BridgeEngine {
    /// Runs a synchronous method on the bridge's (the engine's) executor, for callers that are not on it.
    fileprivate func runHere(
        _ body: Invocation.SyncBody, _ payload: Substring.UTF8View, _ context: CallContext,
        _ lease: ArgumentBudget.Lease
    ) throws -> String {
        try withExtendedLifetime(lease) { try body(payload, context) }
    }

    /// Runs an async method on the bridge's (the engine's) executor.
    fileprivate func runHere(
        _ body: @Sendable (Substring.UTF8View, CallContext) async throws -> String, _ payload: Substring.UTF8View,
        _ context: CallContext, _ lease: ArgumentBudget.Lease
    ) async throws -> String {
        defer { withExtendedLifetime(lease) {} }
        return try await body(payload, context)
    }

    /// Runs a stream method on the bridge's (the engine's) executor; its sink hops nowhere then.
    fileprivate func runHere(
        _ body: @Sendable (Substring.UTF8View, CallContext, BridgeStreamSink) async throws -> Void,
        _ payload: Substring.UTF8View, _ context: CallContext, _ sink: BridgeStreamSink,
        _ lease: ArgumentBudget.Lease
    ) async throws {
        defer { withExtendedLifetime(lease) {} }
        try await body(payload, context, sink)
    }
}
