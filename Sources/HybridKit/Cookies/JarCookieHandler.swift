import Foundation
import HybridCookies

/// The cookie jar behind the ``HTTPCookieHandling`` seam: native networking (the package handler's network
/// fallback, the native proxy) asks it for the `Cookie` header of each hop and hands it every `Set-Cookie`.
///
/// Pages served through a custom scheme stand for http(s) URLs (`hybrid://host/p` for `https://host/p`): give
/// `pageURL` the mapping so a custom-scheme `firstParty` is judged as the site it stands for (SameSite). Request
/// URLs are real http(s) URLs already; they are mapped too, so a caller that passes a custom-scheme URL by
/// mistake still gets the cookies of the URL it stands for rather than none.
public final class JarCookieHandler: HTTPCookieHandling {
    public let jar: CookieJar
    private let pageURL: @Sendable (URL) -> URL?

    /// - Parameters:
    ///   - jar: where cookies come from and go to.
    ///   - pageURL: maps a custom-scheme URL to the http(s) URL it stands for (nil: not one of ours, used as
    ///     is). `OfflineURLMapping.packageURL(for:)` is the usual choice.
    public init(jar: CookieJar, pageURL: @escaping @Sendable (URL) -> URL? = { _ in nil }) {
        self.jar = jar
        self.pageURL = pageURL
    }

    public func cookieHeader(for url: URL, firstParty: URL?, method: String, includeHTTPOnly: Bool) -> String? {
        jar.cookieHeader(
            for: request(url, firstParty: firstParty, method: method, api: includeHTTPOnly ? .http : .nonHTTP))
    }

    public func storeSetCookies(_ values: [String], from url: URL, firstParty: URL?) {
        guard !values.isEmpty else { return }
        jar.setCookies(values, for: request(url, firstParty: firstParty, method: "GET", api: .http))
    }

    /// The jar's view of a request: the real URL, and SameSite judged against the page it is made for. A request
    /// without a page (native code, a top-level load) is same-site, as the jar's `.http` requests are.
    func request(_ url: URL, firstParty: URL?, method: String, api: CookieAPI) -> CookieRequest {
        let target = real(url)
        let context = SameSiteContext.compute(
            requestURL: target, topLevelURL: firstParty.map(real), isTopLevelNavigation: false, method: method)
        return CookieRequest(url: target, api: api, sameSiteContext: context)
    }

    private func real(_ url: URL) -> URL {
        switch url.scheme?.lowercased() {
        case "http", "https", "ws", "wss": url
        default: pageURL(url) ?? url
        }
    }
}
