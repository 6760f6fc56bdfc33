import Foundation
import Testing

@testable import HybridCookies

@Suite("Jar: Secure, HttpOnly, prefixes, strict secure cookies")
struct CookieJarSecurityTests {
    @Test func secureCookieNeedsSecureURL() {
        let (jar, _) = makeCookieJar()
        #expect(jar.set("a=1; Secure", "http://example.com/") == .rejected(.secureFromInsecureURL))
        #expect(jar.set("a=1; Secure", "https://example.com/").isAccepted)
        #expect(jar.header("http://example.com/") == "")
        #expect(jar.header("https://example.com/") == "a=1")
    }

    @Test func localhostCountsAsSecure() {
        let (jar, _) = makeCookieJar()
        #expect(jar.set("a=1; Secure", "http://localhost:8080/").isAccepted)
        #expect(jar.header("http://localhost:8080/") == "a=1")
        let (strict, _) = makeCookieJar { $0.treatLoopbackAsSecure = false }
        #expect(strict.set("a=1; Secure", "http://localhost/").isAccepted == false)
    }

    @Test func insecureOriginCannotShadowSecureCookie() {
        let (jar, _) = makeCookieJar()
        jar.set("session=secret; Secure; Domain=example.com", "https://example.com/")
        #expect(
            jar.set("session=evil", "http://example.com/")
                == .rejected(.wouldOverwriteSecureCookieFromInsecureURL))
        #expect(jar.set("session=evil", "http://www.example.com/login").isAccepted == false)
        #expect(jar.set("session=evil; Path=/sub", "http://example.com/").isAccepted == false)
        #expect(jar.set("other=ok", "http://example.com/").isAccepted)
        #expect(jar.set("session=fine", "https://example.com/").isAccepted)  // secure origin may
    }

    @Test func httpOnlyNotVisibleToNonHTTPAndNotSettable() {
        let (jar, _) = makeCookieJar()
        jar.set("h=1; HttpOnly", "https://example.com/")
        jar.set("p=2", "https://example.com/")
        #expect(jar.header("https://example.com/") == "h=1; p=2")
        #expect(jar.documentCookie(for: testURL("https://example.com/")) == "p=2")
        #expect(
            jar.setDocumentCookie("x=1; HttpOnly", pageURL: testURL("https://example.com/"))
                == .rejected(.httpOnlyFromNonHTTPAPI))
        #expect(
            jar.setDocumentCookie("h=evil", pageURL: testURL("https://example.com/"))
                == .rejected(.wouldOverwriteHttpOnlyFromNonHTTPAPI))
        #expect(
            jar.setDocumentCookie("h=; Max-Age=0", pageURL: testURL("https://example.com/")).isAccepted
                == false)
        #expect(jar.header("https://example.com/") == "h=1; p=2")
    }

    @Test func pageCannotSetForAnotherRegistrableDomain() {
        let (jar, _) = makeCookieJar()
        let page = testURL("https://app.example.com/index.html")
        #expect(jar.setDocumentCookie("a=1; Domain=example.com", pageURL: page).isAccepted)
        #expect(jar.setDocumentCookie("b=1; Domain=other.com", pageURL: page).isAccepted == false)
        #expect(jar.setDocumentCookie("c=1; Domain=com", pageURL: page).isAccepted == false)
        #expect(jar.documentCookie(for: testURL("https://example.com/")) == "a=1")
    }

    @Test func securePrefix() {
        let (jar, _) = makeCookieJar()
        #expect(
            jar.set("__Secure-a=1", "https://example.com/") == .rejected(.securePrefixRequirementsNotMet))
        #expect(jar.set("__secure-a=1", "https://example.com/").isAccepted == false)  // case-insensitive
        #expect(jar.set("__Secure-a=1; Secure", "http://example.com/").isAccepted == false)
        #expect(
            jar.set("__Secure-a=1; Secure; Domain=example.com", "https://www.example.com/").isAccepted)
    }

    @Test func hostPrefix() {
        let (jar, _) = makeCookieJar()
        let site = "https://example.com/dir/"
        #expect(jar.set("__Host-a=1; Secure; Path=/", site).isAccepted)
        #expect(jar.set("__Host-b=1; Secure", site) == .rejected(.hostPrefixRequirementsNotMet))  // no Path
        #expect(jar.set("__Host-c=1; Secure; Path=/dir", site).isAccepted == false)
        #expect(jar.set("__Host-d=1; Path=/", site).isAccepted == false)  // not Secure
        #expect(jar.set("__Host-e=1; Secure; Path=/; Domain=example.com", site).isAccepted == false)
        #expect(jar.set("__HOST-f=1; Secure; Path=/; Domain=example.com", site).isAccepted == false)
    }

    @Test func namelessCookieCannotFakePrefix() {
        let (jar, _) = makeCookieJar()
        #expect(
            jar.set("__Host-x", "https://example.com/") == .rejected(.namelessCookieWithPrefixedValue))
        #expect(jar.set("=__Secure-x", "https://example.com/").isAccepted == false)
    }
}
