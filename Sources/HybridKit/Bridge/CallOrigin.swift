/// What telemetry and the call observer need to know about a call when it is answered.
struct CallOrigin: Sendable {
    /// A module the host registered, or `-`: never a name the page made up.
    let module: String
    let started: ContinuousClock.Instant
    /// The call as the page made it, for ``BridgeConfiguration/callObserver`` (not the message itself,
    /// whose payload may be megabytes); nil before the message could be read.
    var requested: (module: String, method: String)? = nil
    var sender: BridgeEngine.Sender? = nil
    /// Where the bytes of the answer went; nil where an answer cannot hold bytes.
    var bytes: BinaryCoding.Outgoing? = nil

    /// The call as the page named it, for log lines.
    var name: String { requested.map { "\($0.module).\($0.method)" } ?? module }
}
