import Foundation

/// `document.cookie` — the non-HTTP API a page uses. The rules that keep a page honest:
/// it cannot create or overwrite HttpOnly cookies, cannot read them, and (through domain-match and
/// the public suffix check) cannot set cookies for any other registrable domain.
extension CookieJar {
    /// Applies `document.cookie = string` from a page at `pageURL`.
    /// `sameSiteContext` is how the page's document relates to the top-level document.
    @discardableResult
    public func setDocumentCookie(
        _ string: String, pageURL: URL, sameSiteContext: SameSiteContext = .sameSite
    ) -> CookieSetResult {
        setCookie(
            string, for: CookieRequest(url: pageURL, api: .nonHTTP, sameSiteContext: sameSiteContext))
    }

    /// The value `document.cookie` returns on a page at `pageURL`: no HttpOnly cookies, "" when none.
    public func documentCookie(for pageURL: URL, sameSiteContext: SameSiteContext = .sameSite)
        -> String
    {
        cookieHeader(for: CookieRequest(url: pageURL, api: .nonHTTP, sameSiteContext: sameSiteContext))
            ?? ""
    }
}
