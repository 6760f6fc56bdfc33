import Foundation
import HybridCookies
import Testing

@testable import HybridKit

/// Hostile URLs against the network-page and prefetch origin checks: an address in any form the network stack
/// takes is the address it names, and a URL that is not one of the listed origins is never fetched natively.
@Suite struct NetworkPageHostileURLTests {
    /// Each names this machine, a private network or no unicast host, in a form the resolver (`inet_aton`,
    /// `inet_pton`) and so URLSession and curl accept: the check reads them as the stack does.
    static let disguised = [
        "http://127.1", "http://2130706433", "http://0x7f.0.0.1", "http://0177.0.0.1", "http://0x7f000001",
        "http://127.0.0.1.", "http://localhost.", "http://LOCALHOST", "http://api.localhost.", "http://10.1",
        "http://167772161", "http://[0:0:0:0:0:0:0:1]", "http://[::ffff:7f00:1]", "http://[::ffff:10.0.0.1]",
        "http://[fe80::1%25eth0]", "http://[FD00::1]", "http://0.0.0.0", "http://0", "http://255.255.255.255",
        "http://224.0.0.1", "http://[ff02::1]", "http://198.18.0.1", "http://[64:ff9b::7f00:1]",
        "http://[64:ff9b::10.0.0.1]", "http://[64:ff9b:1::c0a8:1]", "http://[2002:7f00:1::]", "http://[2002:a00:1::1]",
    ]

    @Test(arguments: disguised)
    func aDisguisedPrivateAddressIsATypedError(_ origin: String) throws {
        let jar = CookieJar()
        #expect(throws: NetworkPageError.privateAddress(origin)) {
            try NetworkPagePrefetcher(origins: [origin], jar: jar)
        }
        // Allowed on purpose (development): taken.
        _ = try NetworkPagePrefetcher(
            origins: [origin], policy: NetworkPagePolicy(allowsPrivateAddresses: true), jar: jar)
    }

    /// Public names that merely start with digits or look like hex, and public addresses, are not caught.
    @Test func publicNamesAndAddressesAreNotPrivate() {
        for host in [
            "1password.com", "0x.example", "123.example", "news.example", "8.8.8.8", "2001:4860:4860::8888",
            "[2606:4700::1111]", "172.32.0.1", "100.128.0.1", "1.1.1.1.example", "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            #expect(!PrefetchPlanner.isPrivate(host: host), "\(host)")
        }
    }

    /// Userinfo, other schemes, other ports and look-alike hosts are not the listed origin: never fetched
    /// natively (the engine loads them the plain way).
    @Test func urlsOutsideTheListedOriginsAreNotCovered() throws {
        let pages = try NetworkPagePrefetcher(origins: ["https://news.example"], jar: CookieJar())
        for text in [
            "http://news.example/", "https://news.example:8443/", "https://news.example.evil.example/",
            "https://evil.example/@news.example/", "file:///etc/passwd", "data:text/html,hi", "app://news.example/",
            "https://xn--nws-fla.example/", "javascript:alert(1)",
        ] {
            let url = try #require(URL(string: text), "\(text)")
            #expect(!pages.covers(url), "\(text)")
            #expect(!pages.prefetch(for: url), "\(text)")
        }
        // The listed origin, spelt another way, is the same origin.
        #expect(pages.covers(try #require(URL(string: "https://NEWS.example:443/a"))))
    }
}
