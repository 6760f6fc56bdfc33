/// How a page's XHR and fetch requests are handled.
public enum InterceptionStrategy: String, Sendable, Codable, CaseIterable {
    /// Not hooked: the engine sends every request itself.
    case off
    /// Bodies the engine would lose or crash on (Blob, File, FormData with files, ReadableStream) are uploaded to
    /// native first; the engine then sends the request tagged with the body's id and the scheme handler
    /// re-attaches the body. Everything else goes through the engine untouched.
    case bodyByID
    /// Every request is performed by native networking (``RequestProxying``) and the response streamed back.
    case fullProxy
}
