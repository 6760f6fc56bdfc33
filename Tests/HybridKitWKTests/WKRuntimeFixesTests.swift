#if os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit
import HybridKitTesting
import Testing
@testable import HybridKitWK
@testable import WebKitStandIn

/// Issue 24's adapter bugs, each against the stand-in's model of what WebKit does: cookie observers keyed by
/// address, website data stores as separate sessions, body streams read off the main thread, scheme handlers
/// not kept alive by a view, views with a size and a place to wait, and user gestures from navigation types.
@Suite(.serialized) @MainActor struct WKRuntimeFixesTests {
    /// A backend of FakeEngines on the main actor, one FakeCookieStore per website data store, as WebKit keeps
    /// one network session per store.
    @MainActor final class StoreBackend {
        private var cookies: [WKStandInDataStoreID: FakeCookieStore] = [:]
        private(set) var engines: [(store: WKStandInDataStoreID, engine: FakeEngine)] = []

        func cookieStore(_ store: WKStandInDataStoreID) -> FakeCookieStore {
            if let existing = cookies[store] { return existing }
            let created = FakeCookieStore()
            cookies[store] = created
            return created
        }

        func install() {
            WKStandIn.backend = WKStandInBackend(
                makeEngineInStore: { [self] _, store in
                    let engine = FakeEngine(cookies: cookieStore(store))
                    engines.append((store, engine))
                    return engine
                })
        }
    }

    final class Handler: SchemeHandler {
        var started: [any SchemeTask] = []
        func start(_ task: any SchemeTask) { started.append(task) }
        func stop(_ task: any SchemeTask) {}
    }

    func wkEngine(_ engine: any WebEngine) throws -> WKEngine { try #require(engine as? WKEngine) }

    // MARK: 1. Cookie-store observers

    /// WebKit ignores an `add` for an address it holds and keeps the key of an observer that died unremoved:
    /// a closed engine, and one dropped without closing, must leave no key behind.
    @Test func enginesLeaveNoCookieObserverKeyBehind() async throws {
        WKStandIn.backend = nil
        let store = WKWebsiteDataStore.nonPersistent()
        func configuration() -> WKWebViewConfiguration {
            let configuration = WKWebViewConfiguration()
            configuration.websiteDataStore = store
            return configuration
        }
        let closed = try WKEngine(configuration: configuration())
        #expect(store.httpCookieStore.standInObserverKeyCount == 1)
        closed.close()
        #expect(store.httpCookieStore.standInObserverKeyCount == 0, "close() removes the observer")

        do { _ = try WKEngine(configuration: configuration()) }
        #expect(try await waitUntil { store.httpCookieStore.standInObserverKeyCount == 0 })
        #expect(store.httpCookieStore.standInDeadObserverKeyCount == 0)
    }

    /// Engines made one after another in one store (an allocator hands freed addresses back): each hears the
    /// store's changes, whatever address its observer got.
    @Test func everyNewEngineHearsItsStoresCookieChanges() async throws {
        WKStandIn.backend = nil
        let store = WKWebsiteDataStore.nonPersistent()
        for round in 0..<20 {
            let configuration = WKWebViewConfiguration()
            configuration.websiteDataStore = store
            let engine = try WKEngine(configuration: configuration)
            let heard = Counter()
            engine.cookieStore.observeChanges { MainActor.assumeIsolated { heard.value += 1 } }
            store.httpCookieStore.notifyObservers()
            #expect(heard.value == 1, "engine \(round) heard \(heard.value) changes")
            await Task.yield()
        }
    }

    /// The stand-in's registry as WebKit's: a second `add` of one observer is ignored, `remove` frees the key.
    @Test func theObserverRegistryIsKeyedByAddress() {
        WKStandIn.backend = nil
        final class Observer: NSObject, WKHTTPCookieStoreObserver {
            var calls = 0
            func cookiesDidChange(in cookieStore: WKHTTPCookieStore) { calls += 1 }
        }
        let cookies = WKWebsiteDataStore.nonPersistent().httpCookieStore
        let observer = Observer()
        cookies.add(observer)
        cookies.add(observer)
        cookies.notifyObservers()
        #expect(observer.calls == 1)
        cookies.remove(observer)
        cookies.notifyObservers()
        #expect(observer.calls == 1)
        #expect(cookies.standInObserverKeyCount == 0)
    }

    // MARK: 2. Website data stores

    @Test func eachFactorysStoreKeepsItsOwnCookiesChangesAndClearing() async throws {
        let backend = StoreBackend()
        backend.install()
        defer { WKStandIn.backend = nil }
        let first = WKEngineFactory(dataStore: .nonPersistent)
        let second = WKEngineFactory(dataStore: .nonPersistent)
        let a1 = try wkEngine(try first.makeEngine())
        let a2 = try wkEngine(try first.makeEngine())
        let b = try wkEngine(try second.makeEngine())
        defer { for engine in [a1, a2, b] { engine.close() } }
        #expect(a1.webView.configuration.websiteDataStore === a2.webView.configuration.websiteDataStore)
        #expect(a1.webView.configuration.websiteDataStore !== b.webView.configuration.websiteDataStore)
        #expect(!a1.webView.configuration.websiteDataStore.isPersistent)
        // The views' engines exist once the stand-in's lane has run.
        #expect(try await waitUntil { backend.engines.count == 3 })

        let heardByB = Counter()
        b.cookieStore.observeChanges { MainActor.assumeIsolated { heardByB.value += 1 } }
        let heardByA = Counter()
        a2.cookieStore.observeChanges { MainActor.assumeIsolated { heardByA.value += 1 } }
        try await a1.cookieStore.setCookie(EngineCookie(name: "cart", value: "1", domain: "shop.example"))
        #expect(try await a2.cookieStore.cookies(for: nil).map(\.name) == ["cart"], "one store, one jar")
        #expect(try await b.cookieStore.cookies(for: nil).isEmpty, "another store's cookie")
        #expect(try await waitUntil { heardByA.value > 0 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(heardByB.value == 0, "another store's change reached this engine's observer")

        try await a1.clearWebsiteData(.all, modifiedSince: nil)
        // The stand-in's lane makes the three engines in no set order: which is whose is told by their stores.
        let cleared = backend.engines.filter { !$0.engine.clearedData.isEmpty }.map(\.store)
        #expect(cleared.count == 1)
        let clearedStore = try #require(cleared.first)
        #expect(backend.engines.filter { $0.store == clearedStore }.count == 2, "the first factory's store was cleared")
        let others = backend.engines.filter { $0.store != clearedStore }
        #expect(others.count == 1 && others.allSatisfy { $0.engine.clearedData.isEmpty })
    }

    @Test func identifiedStoresAreSharedByIdentifierAndDefaultIsWebKits() async throws {
        let backend = StoreBackend()
        backend.install()
        defer { WKStandIn.backend = nil }
        let id = UUID()
        let one = try wkEngine(try WKEngineFactory(dataStore: .identified(id)).makeEngine())
        let two = try wkEngine(try WKEngineFactory(dataStore: .identified(id)).makeEngine())
        let plain = try wkEngine(try WKEngineFactory(dataStore: .default).makeEngine())
        let unset = try wkEngine(try WKEngineFactory().makeEngine())
        defer { for engine in [one, two, plain, unset] { engine.close() } }
        #expect(one.webView.configuration.websiteDataStore.identifier == id)
        #expect(one.webView.configuration.websiteDataStore.isPersistent)
        #expect(plain.webView.configuration.websiteDataStore === WKWebsiteDataStore.default())
        #expect(unset.webView.configuration.websiteDataStore === WKWebsiteDataStore.default())
        #expect(try await waitUntil { backend.engines.count == 4 })
        try await one.cookieStore.setCookie(EngineCookie(name: "profile", value: "p", domain: "a.example"))
        #expect(try await two.cookieStore.cookies(for: nil).map(\.name) == ["profile"])
        #expect(try await !plain.cookieStore.cookies(for: nil).contains { $0.name == "profile" })
    }

    // MARK: 3. Request bodies off the main thread

    @Test func aSchemeTaskBodyIsReadOffTheMainThread() async throws {
        WKStandIn.backend = nil
        let bridge = SchemeHandlerBridge()
        let handler = Handler()
        bridge.handler = handler
        let view = WKWebView(frame: WKEngine.defaultViewFrame, configuration: WKWebViewConfiguration())
        let body = Data((0..<300_000).map { UInt8($0 % 251) })
        let task = makeStandInTask(RecordingPortTask(url: "app://demo/upload", method: "POST", body: body))
        bridge.webView(view, start: task)
        #expect(try await waitUntil { handler.started.count == 1 })
        #expect(handler.started.first?.request.body == body)
        #expect(!task.standInBodyReadOnMainThread, "the body stream was read on the main thread")
        #expect(bridge.openTaskCount == 1)

        // Stopped while its body is read: the handler never hears of it, and WebKit never again.
        let stopped = makeStandInTask(RecordingPortTask(url: "app://demo/late", method: "POST", body: body))
        bridge.webView(view, start: stopped)
        bridge.webView(view, stop: stopped)
        stopped.markStopped()
        try await Task.sleep(for: .milliseconds(200))
        #expect(handler.started.count == 1)
        #expect(bridge.openTaskCount == 1)
    }

    // MARK: 4. Handlers are not kept alive by a view

    @Test func aDroppedEngineReleasesItsSchemeHandlerWhileItsViewLives() async throws {
        WKStandIn.backend = nil
        weak var released: Handler?
        let kept: WKWebView
        do {
            let engine = try WKEngine(schemes: ["app"])
            let handler = Handler()
            released = handler
            try engine.setSchemeHandler(handler, forScheme: "app")
            kept = engine.webView
        }
        #expect(released == nil, "the view's configuration kept the dropped engine's handler alive")
        // The view the host kept answers its scheme's requests with a failure, not a hang.
        let bridge = try #require(kept.configuration.urlSchemeHandler(forURLScheme: "app"))
        let port = RecordingPortTask()
        bridge.webView(kept, start: makeStandInTask(port))
        #expect(try await waitUntil { port.calls == ["fail"] })
    }

    // MARK: 5. Warm views

    @Test func viewsHaveASizeAndAPlaceToWait() async throws {
        let backend = StoreBackend()
        backend.install()
        defer { WKStandIn.backend = nil }
        final class Parking {
            var views: [WKWebView] = []
        }
        let parking = Parking()
        let factory = WKEngineFactory(parkView: { view in parking.views.append(view) })
        let engine = try wkEngine(try factory.makeEngine())
        defer { engine.close() }
        #expect(!engine.webView.frame.isEmpty)
        #expect(parking.views.count == 1 && parking.views.first === engine.webView)
        // WebKit cannot snapshot an empty view; a warm one can.
        #expect(try await waitUntil { backend.engines.count == 1 })
        _ = try await engine.snapshotPNG()

        let unsized = try WKEngine(frame: .zero)
        defer { unsized.close() }
        #expect(unsized.webView.frame == WKEngine.defaultViewFrame)
    }

    /// The stand-in's rule the fix is measured against: a zero-size view's snapshot fails, as in WebKit.
    @Test func theStandInRefusesToSnapshotAnEmptyView() async throws {
        let backend = StoreBackend()
        backend.install()
        defer { WKStandIn.backend = nil }
        let view = WKWebView(frame: .zero, configuration: WKWebViewConfiguration())
        let failed = await withCheckedContinuation { continuation in
            view.takeSnapshot(with: nil) { image, error in continuation.resume(returning: image == nil && error != nil)
            }
        }
        #expect(failed)
    }

    // MARK: 6. User gestures

    final class Actions: NavigationDelegate, @unchecked Sendable {
        // Main actor only.
        var gestures: [Bool] = []
        func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy {
            gestures.append(action.isUserGesture)
            return .allow
        }
    }

    @Test func userGesturesComeFromTheNavigationType() throws {
        WKStandIn.backend = nil
        let engine = try WKEngine()
        defer { engine.close() }
        let actions = Actions()
        engine.navigationDelegate = actions
        let view = engine.webView
        func action(_ type: WKNavigationType, newWindow: Bool = false) throws -> WKNavigationAction {
            let request = URLRequest(url: try #require(URL(string: "https://example.com/next")))
            let frame = WKFrameInfo(
                isMainFrame: true, request: request, securityOrigin: WKSecurityOrigin(serialized: "null"),
                webView: view)
            return WKNavigationAction(
                request: request, navigationType: type, sourceFrame: frame, targetFrame: newWindow ? nil : frame,
                shouldPerformDownload: false)
        }
        for type in [WKNavigationType.linkActivated, .formSubmitted, .other, .reload, .backForward] {
            engine.webView(view, decidePolicyFor: try action(type)) { _ in }
        }
        #expect(actions.gestures == [true, true, false, false, false])
        // `target=_blank` clicked, `window.open` from a script.
        _ = engine.webView(
            view, createWebViewWith: WKWebViewConfiguration(), for: try action(.linkActivated, newWindow: true),
            windowFeatures: WKWindowFeatures())
        _ = engine.webView(
            view, createWebViewWith: WKWebViewConfiguration(), for: try action(.other, newWindow: true),
            windowFeatures: WKWindowFeatures())
        #expect(actions.gestures.suffix(2) == [true, false])
    }
}

@MainActor final class Counter {
    var value = 0
}
#endif
