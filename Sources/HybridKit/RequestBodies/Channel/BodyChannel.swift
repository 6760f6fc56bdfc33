/// A loopback HTTP listener the request hooks send large bodies to with the engine's own XHR, so the engine's
/// network process streams a `Blob` or `File` from where its bytes already are, instead of the page reading it
/// back in slices and posting each one to the scheme handler.
///
/// The body is still reserved through the scheme handler (which fixes its size, origin and view) and the request
/// still goes by id or through the proxy: the channel only carries the bytes. When the channel is unreachable (an
/// app suspended in the background on iOS closes listening sockets), the hooks send the same body in slices as
/// before, and the page sees no difference.
///
/// HybridNetwork's `LoopbackBodyChannel` is the listener; ``BodyChannelRoutes`` makes every decision, so the rules
/// are the same whatever transport serves them.
public protocol BodyChannel: AnyObject, Sendable {
    /// Where the hooks send bodies, `http://127.0.0.1:<port>`; nil while not listening (pages made then upload in
    /// slices).
    var endpoint: String? { get }
    var routes: BodyChannelRoutes { get }
}
