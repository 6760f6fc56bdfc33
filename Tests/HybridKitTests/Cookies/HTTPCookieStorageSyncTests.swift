import Foundation
import HybridKit
import HybridCookies
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct HTTPCookieStorageSyncTests {
    /// A storage of its own (not `.shared`), so tests never touch the user's cookies.
    func freshStorage() -> HTTPCookieStorage {
        HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "hybridkit-test-\(UUID().uuidString)")
    }

    @Test func bothWaysWithDeletionsAndHttpOnlyKept() throws {
        let storage = freshStorage()
        let url = try #require(URL(string: "https://api.example.com/v1/"))
        let native = try #require(
            HTTPCookie(properties: [.name: "native", .value: "n", .domain: "api.example.com", .path: "/"]))
        storage.setCookie(native)
        let jar = CookieJar()
        jar.setCookie("sid=1; HttpOnly; Path=/", for: .http(url))
        let sync = HTTPCookieStorageSync(jar: jar, storage: storage)
        sync.start()
        defer { sync.stop() }

        // Jar → storage, HttpOnly kept.
        let stored = try #require(storage.cookies?.first { $0.name == "sid" })
        #expect(stored.isHTTPOnly)
        // Storage → jar at start.
        #expect(jar.cookieHeader(for: .http(url))?.contains("native=n") == true)

        // Storage changes after start, then a pull (corelibs posts no change notification).
        let later = try #require(
            HTTPCookie(properties: [.name: "later", .value: "l", .domain: "api.example.com", .path: "/"]))
        storage.setCookie(later)
        storage.deleteCookie(native)
        sync.pullFromStorage()
        let header = jar.cookieHeader(for: .http(url)) ?? ""
        #expect(header.contains("later=l"))
        #expect(!header.contains("native="))
        // The HttpOnly cookie came back unchanged: a storage round trip never strips HttpOnly.
        #expect(jar.allCookies().first { $0.name == "sid" }?.httpOnly == true)

        // Jar deletion → storage.
        jar.deleteCookie(name: "sid", domain: "api.example.com", path: "/")
        #expect(storage.cookies?.contains { $0.name == "sid" } == false)
    }
}
