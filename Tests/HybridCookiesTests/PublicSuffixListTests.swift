import Foundation
import Testing

@testable import HybridCookies

@Suite("Public suffix list")
struct PublicSuffixListTests {
    let psl = PublicSuffixList.shared

    /// Without its list (an app shipped without HybridCookies' bundle) the jar fails closed: a `Domain` naming more
    /// than the host is refused (with an empty list, evil.co.uk could set cookies for all of co.uk), host-only
    /// cookies still work, and each host is its own site.
    @Test func withoutTheListTheJarFailsClosed() {
        let list = PublicSuffixList.failClosed
        #expect(list.isPublicSuffix("co.uk") && list.isPublicSuffix("example.com"))
        #expect(list.site(of: "a.example.com") == "a.example.com")
        #expect(PublicSuffixList(rules: "").isPublicSuffix("co.uk") == false, "the permissive reading it replaces")
        let (jar, _) = makeCookieJar { $0.publicSuffixList = .failClosed }
        guard case .rejected = jar.set("k=1; Domain=co.uk", "https://evil.co.uk/") else {
            Issue.record("a cookie for all of co.uk was stored")
            return
        }
        guard case .rejected = jar.set("k=2; Domain=example.com", "https://a.example.com/") else {
            Issue.record("a domain cookie was stored without a list to check it against")
            return
        }
        guard case .stored = jar.set("k=3", "https://a.example.com/") else {
            Issue.record("a host-only cookie was refused")
            return
        }
        #expect(jar.header("https://a.example.com/") == "k=3")
        #expect(jar.header("https://b.example.com/") == "")
    }

    @Test func bundledListLoads() throws {
        let list = try PublicSuffixList.bundled()
        #expect(list.ruleCount > 8000)
    }

    @Test(
        "registrable domains",
        arguments: [
            ("www.example.com", "example.com"),
            ("example.com", "example.com"),
            ("a.b.example.co.uk", "example.co.uk"),
            ("example.co.uk", "example.co.uk"),
            ("user.github.io", "user.github.io"),  // private section
            ("a.user.github.io", "user.github.io"),
            ("www.ck", "www.ck"),  // exception rule !www.ck
            ("foo.bar.ck", "foo.bar.ck"),  // wildcard *.ck
            ("example.unknowntld", "example.unknowntld"),  // implicit *
            ("127.0.0.1", "127.0.0.1"),
        ])
    func registrable(_ host: String, _ expected: String) {
        #expect(psl.registrableDomain(of: host) == expected)
    }

    @Test(
        "public suffixes have no registrable domain",
        arguments: ["com", "co.uk", "github.io", "bar.ck", "unknowntld"])
    func suffixes(_ host: String) {
        #expect(psl.isPublicSuffix(host))
        #expect(psl.registrableDomain(of: host) == nil)
    }

    @Test func sections() {
        #expect(psl.match(host: "x.github.io").section == .privateDomains)
        #expect(psl.match(host: "x.co.uk").section == .icann)
        #expect(psl.match(host: "x.nosuchtld").section == .implicitDefault)
    }

    @Test func customRules() {
        let list = PublicSuffixList(
            rules: """
                // ===BEGIN ICANN DOMAINS===
                test
                *.wild.test
                !keep.wild.test
                // ===END ICANN DOMAINS===
                """)
        #expect(list.publicSuffix(of: "a.b.wild.test") == "b.wild.test")
        #expect(list.publicSuffix(of: "a.keep.wild.test") == "wild.test")
        #expect(list.registrableDomain(of: "a.keep.wild.test") == "keep.wild.test")
        #expect(list.publicSuffix(of: "x.test") == "test")
    }
}
