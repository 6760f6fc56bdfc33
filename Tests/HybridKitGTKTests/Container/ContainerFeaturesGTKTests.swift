#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridDemo
import HybridKit
import HybridKitGTK
import Testing

/// The features wired together in one container, in real WebKitGTK: a package page whose ajax goes through the
/// full proxy with the cookie jar (direction 2 of the cookies issue), and whose `document.cookie` is the jar's.
extension ContainerGTKTests {
    @Suite struct Features {
        @Test @GTKActor func proxiedAjaxCarriesTheJarsCookiesAndDocumentCookieShowsOnlyVisibleOnes() async throws {
            let rig = try await CookieJarRig()
            defer { rig.close() }
            rig.jar.setCookie("session=s3cret; Path=/; HttpOnly", for: .http(rig.site))
            rig.jar.setCookie("theme=dark; Path=/", for: .http(rig.site))
            try await rig.loadPage()

            // A Blob body (the kind that crashes an unprotected handler), proxied natively with the jar's cookies.
            let answer = try await rig.postBlob("hello, proxy")
            #expect(answer.contains("session=s3cret"), "the HttpOnly session travelled: \(answer)")
            #expect(answer.contains("theme=dark"), "\(answer)")
            #expect(answer.hasSuffix("|" + CookieJarRig.sha256(Data("hello, proxy".utf8))), "exact bytes: \(answer)")
            // The response's Set-Cookie went into the jar, and never reached the page.
            #expect(rig.jar.allCookies().contains { $0.name == "fromAjax" && $0.httpOnly })

            // document.cookie is the jar's, without HttpOnly cookies; a page write reaches the jar.
            #expect(await rig.documentCookie(becoming: "theme=dark") == "theme=dark")
            _ = try await rig.container.engine.evaluateJavaScript("document.cookie = 'fromPage=1; path=/'; 1")
            try await waitUntil(timeout: .seconds(30)) {
                rig.jar.cookieHeader(for: .http(rig.site))?.contains("fromPage=1") == true
            }
        }
    }
}
#endif
