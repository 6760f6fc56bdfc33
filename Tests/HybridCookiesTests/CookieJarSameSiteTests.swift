import Foundation
import Testing

@testable import HybridCookies

@Suite("Jar: SameSite (6265bis §5.7, §5.8.3)")
struct CookieJarSameSiteTests {
    func jarWithAllKinds(_ configure: (inout CookieJarConfiguration) -> Void = { _ in }) -> CookieJar {
        let (jar, _) = makeCookieJar(configure)
        jar.set("strict=1; SameSite=Strict", "https://example.com/")
        jar.set("lax=1; SameSite=Lax", "https://example.com/")
        jar.set("none=1; SameSite=None; Secure", "https://example.com/")
        jar.set("default=1", "https://example.com/")
        return jar
    }

    func header(_ jar: CookieJar, _ context: SameSiteContext, api: CookieAPI = .http) -> String {
        jar.cookieHeader(
            for: CookieRequest(url: testURL("https://example.com/"), api: api, sameSiteContext: context))
            ?? ""
    }

    @Test func sameSiteRequestGetsEverything() {
        #expect(header(jarWithAllKinds(), .sameSite) == "strict=1; lax=1; none=1; default=1")
    }

    @Test func crossSiteSubresourceGetsOnlyNone() {
        #expect(header(jarWithAllKinds(), .crossSite) == "none=1")
    }

    @Test func crossSiteTopLevelGetGetsLaxAndDefault() {
        #expect(
            header(jarWithAllKinds(), .crossSiteTopLevelNavigation(method: "GET"))
                == "lax=1; none=1; default=1")
    }

    @Test func crossSiteTopLevelPostGetsOnlyNone() {
        #expect(header(jarWithAllKinds(), .crossSiteTopLevelNavigation(method: "POST")) == "none=1")
    }

    @Test func unspecifiedCanBeTreatedAsNone() {
        let jar = jarWithAllKinds { $0.unspecifiedSameSiteEnforcement = .none }
        #expect(header(jar, .crossSite) == "none=1; default=1")
    }

    @Test func sameSiteNoneRequiresSecure() {
        let (jar, _) = makeCookieJar()
        #expect(
            jar.set("a=1; SameSite=None", "https://example.com/") == .rejected(.sameSiteNoneWithoutSecure)
        )
        let (lenient, _) = makeCookieJar { $0.requireSecureForSameSiteNone = false }
        #expect(lenient.set("a=1; SameSite=None", "https://example.com/").isAccepted)
    }

    @Test func crossSiteResponsesCannotSetSameSiteCookies() {
        let (jar, _) = makeCookieJar()
        let iframe = CookieRequest(url: testURL("https://example.com/"), sameSiteContext: .crossSite)
        #expect(
            jar.setCookie("a=1; SameSite=Lax", for: iframe) == .rejected(.sameSiteFromCrossSiteContext))
        #expect(jar.setCookie("b=1", for: iframe).isAccepted == false)  // Default acts as Lax
        #expect(jar.setCookie("c=1; SameSite=None; Secure", for: iframe).isAccepted)
        let navigation = CookieRequest(
            url: testURL("https://example.com/"),
            sameSiteContext: .crossSiteTopLevelNavigation(method: "GET")
        )
        #expect(jar.setCookie("d=1; SameSite=Strict", for: navigation).isAccepted)
    }

    @Test func crossSiteDocumentCannotSetSameSiteCookies() {
        let (jar, _) = makeCookieJar()
        let page = testURL("https://example.com/")
        #expect(
            jar.setDocumentCookie("a=1; SameSite=Strict", pageURL: page, sameSiteContext: .crossSite)
                .isAccepted == false)
        #expect(
            jar.setDocumentCookie(
                "b=1; SameSite=None; Secure", pageURL: page, sameSiteContext: .crossSite
            ).isAccepted)
    }

    @Test func contextComputation() {
        let psl = PublicSuffixList.shared
        let request = testURL("https://api.example.com/data")
        #expect(
            SameSiteContext.compute(
                requestURL: request, topLevelURL: testURL("https://www.example.com/"),
                isTopLevelNavigation: false, publicSuffixList: psl) == .sameSite)
        #expect(
            SameSiteContext.compute(
                requestURL: request, topLevelURL: testURL("https://evil.com/"),
                isTopLevelNavigation: false, publicSuffixList: psl) == .crossSite)
        #expect(
            SameSiteContext.compute(
                requestURL: request, topLevelURL: testURL("http://www.example.com/"),
                isTopLevelNavigation: false, publicSuffixList: psl) == .crossSite)  // schemeful
        #expect(
            SameSiteContext.compute(
                requestURL: request, topLevelURL: testURL("https://evil.com/"),
                isTopLevelNavigation: true, method: "POST", publicSuffixList: psl)
                == .crossSiteTopLevelNavigation(method: "POST"))
        #expect(
            SameSiteContext.compute(
                requestURL: testURL("https://a.github.io/"), topLevelURL: testURL("https://b.github.io/"),
                isTopLevelNavigation: false, publicSuffixList: psl) == .crossSite)
        #expect(
            SameSiteContext.compute(requestURL: request, topLevelURL: nil, isTopLevelNavigation: true)
                == .sameSite)
    }
}
