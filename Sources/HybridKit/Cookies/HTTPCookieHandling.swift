import Foundation

/// The cookie seam of native networking: whatever performs an HTTP request on the page's behalf (the native
/// proxy, a package miss fetched from the network) asks it which `Cookie` header to send at each hop and hands it
/// every `Set-Cookie` it receives, redirects included. The cookie jar implements it; networking never keeps
/// cookies of its own, so the jar stays the single source of truth.
///
/// Called from any thread.
public protocol HTTPCookieHandling: Sendable {
    /// The `Cookie` header value to send with a request to `url`, or nil for none.
    /// - Parameters:
    ///   - url: the request's URL (http or https).
    ///   - firstParty: the URL of the page the request is made for (SameSite), nil when native code asks.
    ///   - method: the request method (SameSite=Lax allows top-level GETs only).
    ///   - includeHTTPOnly: false when the answer will be shown to page script.
    func cookieHeader(for url: URL, firstParty: URL?, method: String, includeHTTPOnly: Bool) -> String?

    /// Stores what the `Set-Cookie` header values of a response from `url` set, in the order received.
    /// Values are whole header lines as the server sent them: never split them at commas.
    func storeSetCookies(_ values: [String], from url: URL, firstParty: URL?)
}
