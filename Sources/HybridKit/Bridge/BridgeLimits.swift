/// Bounds on what a page can make the native side do. Pages are untrusted: every limit has a default.
public struct BridgeLimits: Sendable, Equatable {
    /// Largest message accepted, in UTF-8 bytes (head and payload). Larger ones fail with `bad_message`
    /// before any parsing; the runtime refuses them before posting.
    public var maxMessageBytes: Int
    /// Deepest nesting of arrays and objects in a payload.
    public var maxNestingDepth: Int
    /// Calls a page may have pending at once; more fail with `denied`.
    public var maxPendingCalls: Int
    /// How long a native handler may run before the call fails with `timeout` (`nil`: no limit).
    public var callTimeout: Duration?
    /// How long the page waits for any call before rejecting it with `timeout` (0 disables).
    public var pageCallTimeout: Duration
    /// How long a synchronous call (`hybrid.callSync`) may keep the page's main thread blocked before it
    /// throws `timeout` (a method's own timeout overrides it). Methods that run inline on the engine's thread
    /// answer before any timer could fire.
    public var syncCallTimeout: Duration
    /// How many elements of a stream native reads ahead of the page, and the page asks for at a time: each side
    /// holds at most about this many.
    public var streamWindow: Int
    /// Streams a page may have open at once; more fail with `denied`.
    public var maxOpenStreams: Int
    /// Largest binary value in either direction, in bytes: all the bytes of one call's arguments, or one `Data` an
    /// answer holds. Larger ones fail with `bad_arguments` before a byte is read.
    public var maxBinaryBytes = 256 << 20
    /// Bytes native keeps at once for pages to fetch (answers not yet read); answers past it fail with `denied`.
    public var maxHeldBinaryBytes = 512 << 20
    /// `Data` values native keeps at once for pages to fetch, whatever their size; answers past it fail with
    /// `denied`. Each waits with a timer of its own until fetched, so a page that makes many calls answering small or
    /// empty `Data` and never fetches them would otherwise grow the store without bound until they expire.
    public var maxHeldBinaryValues = 16_384
    /// Bytes of binary calls' arguments admitted at once, from their admission until they are answered (each upload
    /// is copied whole into the app's process, and its method holds it while it runs); a call past it fails with
    /// `denied` before a byte moves. Without it a page could start many calls that each send one large buffer.
    public var maxBinaryBytesInFlight = 512 << 20
    /// Bytes of JSON arguments held at once by calls and streams that answer later (a method holds its arguments
    /// until it ends); a call past it fails with `denied`. Without it a page could pin memory without bound: many
    /// calls of a slow method, each with a large argument.
    public var maxPendingArgumentBytes = 256 << 20
    /// Parts (`ArrayBuffer`s, typed arrays, `Blob`s) one call may send; more fail with `bad_message`.
    public var maxBinaryParts = 64
    /// How long bytes native answered with wait for their page to fetch them before they are freed.
    public var byteRedemptionTimeout: Duration = .seconds(30)

    public init(
        maxMessageBytes: Int = 16 << 20, maxNestingDepth: Int = 128, maxPendingCalls: Int = 10_000,
        callTimeout: Duration? = .seconds(30), pageCallTimeout: Duration = .seconds(60),
        syncCallTimeout: Duration = .seconds(2), streamWindow: Int = 256, maxOpenStreams: Int = 4_096
    ) {
        self.streamWindow = max(1, streamWindow)
        self.maxOpenStreams = maxOpenStreams
        self.syncCallTimeout = syncCallTimeout
        self.maxMessageBytes = maxMessageBytes
        self.maxNestingDepth = maxNestingDepth
        self.maxPendingCalls = maxPendingCalls
        self.callTimeout = callTimeout
        self.pageCallTimeout = pageCallTimeout
    }
}
