#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import HybridKitGTK

/// The demo's cookie line: one jar behind native requests, the proxy and `document.cookie`.
@GTKActor
enum CookieJarTour {
    static func run() async throws -> [TourLine] {
        let rig = try await CookieJarRig()
        defer { rig.close() }
        // Native login: an HttpOnly session and a visible preference, straight into the jar.
        rig.jar.setCookie("session=s3cret; Path=/; HttpOnly", for: .http(rig.site))
        rig.jar.setCookie("theme=dark; Path=/", for: .http(rig.site))
        try await rig.loadPage()
        let answer = try await rig.postBlob("hello, proxy")
        let carried = answer.contains("session=s3cret") && answer.contains("theme=dark")
        let stored = rig.jar.allCookies().contains { $0.name == "fromAjax" && $0.httpOnly }
        let visible = await rig.documentCookie(becoming: "theme=dark")
        let passed = carried && stored && visible == "theme=dark"
        return [
            TourLine(
                name: "cookies: one jar", passed: passed,
                detail: passed
                    ? "a proxied ajax carried the jar's HttpOnly session, its Set-Cookie went to the jar, "
                        + "document.cookie shows only 'theme=dark'"
                    : "server got '\(answer)', Set-Cookie stored: \(stored), document.cookie: '\(visible)'")
        ]
    }
}
#endif
