import Foundation
import Testing

@testable import HybridCookies

@Suite("Jar: domains, host-only, public suffixes, paths")
struct CookieJarDomainPathTests {
    @Test func hostOnlyCookieGoesOnlyToItsHost() {
        let (jar, _) = makeCookieJar()
        jar.set("a=1", "https://example.com/")
        #expect(jar.header("https://example.com/") == "a=1")
        #expect(jar.header("https://www.example.com/") == "")
        #expect(jar.allCookies().first?.hostOnly == true)
    }

    @Test func domainCookieGoesToSubdomains() {
        let (jar, _) = makeCookieJar()
        jar.set("a=1; Domain=example.com", "https://www.example.com/")
        #expect(jar.header("https://example.com/") == "a=1")
        #expect(jar.header("https://deep.www.example.com/") == "a=1")
        #expect(jar.header("https://notexample.com/") == "")
        #expect(jar.allCookies().first?.hostOnly == false)
    }

    @Test func foreignDomainRefused() {
        let (jar, _) = makeCookieJar()
        #expect(
            jar.set("a=1; Domain=other.com", "https://example.com/")
                == .rejected(.domainDoesNotMatchHost(domain: "other.com", host: "example.com")))
        #expect(jar.set("a=1; Domain=www.example.com", "https://example.com/").isAccepted == false)
        #expect(jar.set("a=1; Domain=ample.com", "https://example.com/").isAccepted == false)
    }

    @Test func publicSuffixDomainRefused() {
        let (jar, _) = makeCookieJar()
        #expect(
            jar.set("a=1; Domain=co.uk", "https://example.co.uk/")
                == .rejected(.domainIsPublicSuffix(domain: "co.uk")))
        #expect(
            jar.set("a=1; Domain=com", "https://example.com/")
                == .rejected(.domainIsPublicSuffix(domain: "com")))
        #expect(
            jar.set("a=1; Domain=github.io", "https://me.github.io/")
                == .rejected(.domainIsPublicSuffix(domain: "github.io")))
        #expect(jar.set("b=2; Domain=example.co.uk", "https://www.example.co.uk/").isAccepted)
        #expect(jar.set("c=3; Domain=me.github.io", "https://me.github.io/").isAccepted)
        #expect(jar.header("https://shop.example.co.uk/") == "b=2")
        #expect(jar.header("https://you.github.io/") == "")
    }

    @Test func publicSuffixHostMaySetHostOnlyForItself() {
        let (jar, _) = makeCookieJar()
        let result = jar.set("a=1; Domain=github.io", "https://github.io/")
        guard case .stored(let cookie) = result else {
            Issue.record("expected stored, got \(result)")
            return
        }
        #expect(cookie.hostOnly)
        #expect(jar.header("https://me.github.io/") == "")
    }

    @Test func ipAddressesMatchOnlyThemselves() {
        let (jar, _) = makeCookieJar()
        jar.set("a=1", "http://192.168.0.1/")
        #expect(jar.header("http://192.168.0.1/") == "a=1")
        #expect(jar.set("b=1; Domain=0.1", "http://192.168.0.1/").isAccepted == false)
    }

    @Test func hostIsCaseInsensitiveAndIDNIsPunycoded() {
        let (jar, _) = makeCookieJar()
        jar.set("a=1; Domain=EXAMPLE.com", "https://WWW.Example.COM/")
        #expect(jar.header("https://www.example.com/") == "a=1")
        jar.set("b=2", "https://bücher.example/")
        #expect(jar.allCookies().contains { $0.domain == "xn--bcher-kva.example" })
        #expect(jar.header("https://xn--bcher-kva.example/") == "b=2")
        #expect(jar.set("c=3; Domain=bücher.example", "https://bücher.example/").isAccepted == false)
    }

    @Test(
        "default-path (RFC 6265 §5.1.4)",
        arguments: [
            ("https://example.com", "/"),
            ("https://example.com/", "/"),
            ("https://example.com/file", "/"),
            ("https://example.com/dir/", "/dir"),
            ("https://example.com/dir/file", "/dir"),
            ("https://example.com/a/b/c?q=/x/y", "/a/b"),
        ])
    func defaultPath(_ requestURL: String, _ expected: String) {
        let (jar, _) = makeCookieJar()
        jar.set("a=1", requestURL)
        #expect(jar.allCookies().first?.path == expected)
    }

    @Test func invalidPathAttributeUsesDefaultPath() {
        let (jar, _) = makeCookieJar()
        jar.set("a=1; Path=nope", "https://example.com/dir/page")
        #expect(jar.allCookies().first?.path == "/dir")
    }

    @Test(
        "path-match",
        arguments: [
            ("/", "/", true), ("/", "/anything", true),
            ("/docs", "/docs", true), ("/docs", "/docs/", true), ("/docs", "/docs/web", true),
            ("/docs", "/docsets", false), ("/docs", "/", false), ("/docs", "/Docs", false),
            ("/docs/", "/docs/x", true), ("/docs/", "/docs", false),
        ])
    func pathMatch(_ cookiePath: String, _ requestPath: String, _ matches: Bool) {
        #expect(CookieDomain.pathMatches(requestPath: requestPath, cookiePath: cookiePath) == matches)
    }

    @Test func pathScopedCookieSentOnlyBelowItsPath() {
        let (jar, _) = makeCookieJar()
        jar.set("a=1; Path=/docs", "https://example.com/")
        #expect(jar.header("https://example.com/docs/page") == "a=1")
        #expect(jar.header("https://example.com/docsets") == "")
        #expect(jar.header("https://example.com/") == "")
    }

    @Test func hostOnlyAndDomainVariantsAreDistinct() {
        let (jar, _) = makeCookieJar()
        jar.set("a=host", "https://example.com/")
        jar.set("a=domain; Domain=example.com", "https://example.com/")
        #expect(jar.count == 2)
        #expect(jar.header("https://example.com/") == "a=host; a=domain")
        #expect(jar.header("https://www.example.com/") == "a=domain")
    }
}
