import Foundation
import HybridKit
import Testing

@Suite struct OfflineURLMappingTests {
    let mapping: OfflineURLMapping

    init() throws {
        mapping = OfflineURLMapping(
            route: try OfflineRoute(
                scheme: "hybrid", prefixes: ["https://shop.example.com/app/", "http://127.0.0.1:8080/app/"]))
    }

    func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test func swapsOnlyTheScheme() throws {
        #expect(
            mapping.customURL(for: try url("https://shop.example.com/app/x.js?v=2#top"))?.absoluteString
                == "hybrid://shop.example.com/app/x.js?v=2#top")
        #expect(
            mapping.packageURL(for: try url("hybrid://shop.example.com/app/a%20b.js?v=2"))?.absoluteString
                == "https://shop.example.com/app/a%20b.js?v=2")
        #expect(mapping.customURL(for: try url("file:///etc/passwd")) == nil)
        #expect(mapping.packageURL(for: try url("https://shop.example.com/app/")) == nil)
    }

    @Test func theRouteSaysWhichHostsAreHTTP() throws {
        #expect(
            mapping.packageURL(for: try url("hybrid://127.0.0.1:8080/app/remote.js"))?.absoluteString
                == "http://127.0.0.1:8080/app/remote.js")
        // Same host, outside the prefix: still the scheme that host was configured with.
        #expect(
            mapping.packageURL(for: try url("hybrid://127.0.0.1:8080/other"))?.absoluteString
                == "http://127.0.0.1:8080/other")
        // Unknown hosts default to https.
        #expect(
            mapping.packageURL(for: try url("hybrid://cdn.example.net/lib.js"))?.absoluteString
                == "https://cdn.example.net/lib.js")
    }

    @Test func roundTrips() throws {
        for text in ["https://shop.example.com/app/index.html", "http://127.0.0.1:8080/app/x.css?q=1"] {
            let custom = try #require(mapping.customURL(for: try url(text)))
            #expect(mapping.packageURL(for: custom)?.absoluteString == text)
        }
    }

    @Test func refusesReservedSchemesAndBadPrefixes() {
        #expect(throws: OfflineRouteError.reservedScheme("https")) {
            try OfflineRoute(scheme: "HTTPS", prefixes: [])
        }
        #expect(throws: OfflineRouteError.invalidPrefix("ftp://x/")) { try OfflineRoute(prefixes: ["ftp://x/"]) }
    }
}
