import Foundation
import Testing

@testable import HybridCookies

@Suite("Public suffix list")
struct PublicSuffixListTests {
    let psl = PublicSuffixList.shared

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
