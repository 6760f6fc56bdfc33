import Foundation

/// Which response headers of a main document an engine applies, and so which ones a simulated load (a document
/// native code fetched, shown with ``WebEngine/loadSimulatedRequest(_:response:responseData:)``) must carry or
/// else not happen at all.
///
/// An engine acts only on headers it knows; the lists below are the ones WebKit acts on for a main document.
/// Headers outside both lists (`Date`, `Server`, `Cache-Control`, `ETag`, `X-Request-Id`…) change nothing an
/// engine enforces and may be dropped. `Set-Cookie` is neither: native code applies it to the jar and the
/// engine's store before the hand-over.
public enum SimulatedLoadHeaders {
    /// Applied by the engine's network layer, which a simulated document never passes through, on every engine:
    /// a response with one of these is always loaded the plain way.
    public static let networkLayer: Set<String> = [
        "strict-transport-security", "alt-svc", "clear-site-data", "public-key-pins", "public-key-pins-report-only",
        "expect-ct", "nel", "accept-ch", "critical-ch", "set-login",
    ]

    /// Applied by the document loader from the response: carried by WKWebView's simulated response (WebKit runs
    /// it through the document loader as a network response), lost by WebKitGTK's `load_bytes`, which takes a
    /// MIME type and encoding only.
    public static let documentLayer: Set<String> = [
        "content-security-policy", "content-security-policy-report-only", "x-webkit-csp", "x-frame-options",
        "referrer-policy", "permissions-policy", "feature-policy", "document-policy", "cross-origin-opener-policy",
        "cross-origin-opener-policy-report-only", "cross-origin-embedder-policy",
        "cross-origin-embedder-policy-report-only", "cross-origin-resource-policy", "origin-agent-cluster",
        "x-content-type-options", "x-xss-protection", "x-dns-prefetch-control", "refresh", "link",
        "content-language", "content-disposition", "last-modified", "server-timing", "timing-allow-origin",
        "report-to", "reporting-endpoints", "speculation-rules", "no-vary-search", "supports-loading-mode",
        "service-worker-allowed", "x-permitted-cross-domain-policies",
    ]

    /// The first header (lowercased, by name) of `headers` in `set`, if any.
    public static func first(in headers: [String: String], of set: Set<String>) -> String? {
        headers.keys.map { $0.lowercased() }.filter { set.contains($0) }.sorted().first
    }
}
