import Foundation
import HybridKit
import HybridKitTesting
import HybridCookies
import Testing

@Suite @EngineActor struct EngineCookieSyncTests {
    let url: URL

    init() throws {
        url = try #require(URL(string: "https://shop.example.com/app/"))
    }

    @Test func startWritesTheJarIncludingHttpOnlyAndFollowsJarChanges() async throws {
        let jar = CookieJar()
        jar.setCookie("session=abc; HttpOnly; Path=/", for: .http(url))
        let store = FakeCookieStore()
        let sync = EngineCookieSync(jar: jar, store: store)
        await sync.start()
        #expect(store.all.map(\.name) == ["session"])
        #expect(store.all.first?.isHTTPOnly == true)
        #expect(store.all.first?.domain == "shop.example.com")

        jar.setCookie("theme=dark; Domain=example.com", for: .http(url))
        await sync.settle()
        #expect(store.all.first { $0.name == "theme" }?.domain == ".example.com")

        jar.deleteCookie(name: "session", domain: "shop.example.com", path: "/")
        await sync.settle()
        #expect(store.all.map(\.name) == ["theme"])
        sync.stop()
    }

    @Test func engineChangesReachTheJarWithoutEchoingBack() async throws {
        let jar = CookieJar()
        let store = FakeCookieStore()
        let sync = EngineCookieSync(jar: jar, store: store)
        await sync.start()
        store.engineSets(EngineCookie(name: "fromPage", value: "1", domain: "shop.example.com", path: "/"))
        #expect(await eventually { jar.cookieHeader(for: .http(url)) == "fromPage=1" })
        await sync.settle()
        // The jar's resulting change matched what the engine holds: nothing was written back.
        #expect(store.writes == 0)

        store.engineDeletes(name: "fromPage", domain: "shop.example.com")
        #expect(await eventually { jar.count == 0 })
        await sync.settle()
        #expect(store.writes == 0)
        sync.stop()
    }

    @Test func anExpiredCookieInTheEngineDeletesItFromTheJar() async throws {
        let jar = CookieJar()
        jar.setCookie("old=1; Max-Age=3600", for: .http(url))
        let store = FakeCookieStore()
        let sync = EngineCookieSync(jar: jar, store: store)
        await sync.start()
        store.engineSets(
            EngineCookie(
                name: "old", value: "1", domain: "shop.example.com", path: "/app",
                expires: Date(timeIntervalSinceNow: -10)))
        #expect(await eventually { jar.count == 0 })
        sync.stop()
    }

    @Test func cookiesTheEngineHadBeforeStartAreLeftAlone() async throws {
        let store = FakeCookieStore()
        store.engineSets(EngineCookie(name: "other", value: "1", domain: "elsewhere.test"))
        let jar = CookieJar()
        let sync = EngineCookieSync(jar: jar, store: store)
        await sync.start()
        await sync.settle()
        #expect(jar.count == 0)
        #expect(store.all.map(\.name) == ["other"])
        sync.stop()
    }

    @Test func theEnginesNoneForAnUnsetSameSiteNeitherChangesTheJarNorEchoes() async throws {
        let jar = CookieJar()
        jar.setCookie("plain=1; Path=/", for: .http(url))
        let store = FakeCookieStore(unsetSameSiteIsNone: true)
        let sync = EngineCookieSync(jar: jar, store: store)
        await sync.start()
        let writes = store.writes
        // libsoup reads a cookie set without SameSite back as None.
        store.engineSets(
            EngineCookie(name: "plain", value: "1", domain: "shop.example.com", path: "/", sameSite: .none))
        await sync.settle()
        try await Task.sleep(for: .milliseconds(50))
        await sync.settle()
        #expect(jar.allCookies().first?.sameSite == .unspecified)
        #expect(store.writes == writes)
        // A page's cookie that arrives as None is taken as unspecified: Lax by default in the jar.
        store.engineSets(EngineCookie(name: "fromEngine", value: "1", domain: "shop.example.com", sameSite: .none))
        #expect(
            await eventually { jar.allCookies().contains { $0.name == "fromEngine" && $0.sameSite == .unspecified } })
        // A jar change round-trips through the engine's spelling once, not forever.
        jar.setCookie("later=1; Path=/", for: .http(url))
        try await Task.sleep(for: .milliseconds(100))
        await sync.settle()
        #expect(store.writes == writes + 1)
        sync.stop()
    }
}
