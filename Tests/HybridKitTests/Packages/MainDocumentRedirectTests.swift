import Foundation
import HybridKit
import HybridKitTesting
import Synchronization
import Testing

/// A main document answered with a 3xx moves the view to the final URL; sub-resources follow redirects natively.
@Suite @EngineActor struct MainDocumentRedirectTests {
    let fixture: OfflineFixture
    let navigations = RecordedNavigations()
    static let base = "hybrid://shop.example.com/app/"

    init() throws { fixture = try OfflineFixture() }

    func handler() throws -> PackageSchemeHandler {
        let navigations = self.navigations
        return try fixture.handler(navigate: { navigations.append($0) })
    }

    @Test func aNotedMainDocumentRedirectNavigatesToTheMappedURLAndFailsTheTask() async throws {
        fixture.network.redirects.withLock { $0["https://shop.example.com/app/start"] = "/app/final.html" }
        let handler = try handler()
        let start = try #require(URL(string: Self.base + "start"))
        handler.noteMainFrameNavigation(to: start)
        let task = try await fixture.run(start.absoluteString, handler: handler)
        #expect(navigations.urls == [try #require(URL(string: Self.base + "final.html"))])
        #expect(fixture.network.followed.withLock { $0 } == [false])
        // Failed, not answered: nothing of the 3xx reaches the page, and no history entry is committed.
        #expect(task.response == nil)
        #expect(task.failure != nil)
    }

    @Test func fetchMetadataMarksAMainDocumentWithoutANote() async throws {
        fixture.network.redirects.withLock { $0["https://shop.example.com/app/start"] = "https://elsewhere.test/x" }
        let task = try await fixture.run(
            Self.base + "start", headers: [("Sec-Fetch-Dest", "document")], handler: try handler())
        // Not a routed origin: the engine loads the http(s) URL itself.
        #expect(navigations.urls == [try #require(URL(string: "https://elsewhere.test/x"))])
        #expect(task.failure != nil)
    }

    @Test func subResourceRedirectsAreFollowedNatively() async throws {
        fixture.network.redirects.withLock { $0["https://shop.example.com/app/old.js"] = "/app/new.js" }
        let task = try await fixture.run(Self.base + "old.js", handler: try handler())
        #expect(fixture.network.followed.withLock { $0 } == [true])
        #expect(task.response?.statusCode == 200)
        #expect(String(decoding: task.body, as: UTF8.self) == "from https://shop.example.com/app/new.js")
        #expect(navigations.urls.isEmpty)
        #expect(task.events.last == .finish)
    }

    @Test func anIframeIsNotAMainDocument() async throws {
        fixture.network.redirects.withLock { $0["https://shop.example.com/app/start"] = "/app/final.html" }
        let task = try await fixture.run(
            Self.base + "start", headers: [("Sec-Fetch-Dest", "iframe")], handler: try handler())
        #expect(navigations.urls.isEmpty)
        #expect(task.response?.statusCode == 200)
    }

    @Test func aRedirectLoopStopsAfterTheLimit() async throws {
        fixture.network.redirects.withLock {
            $0["https://shop.example.com/app/a"] = "/app/b"
            $0["https://shop.example.com/app/b"] = "/app/a"
        }
        let handler = try handler()
        var url = try #require(URL(string: Self.base + "a"))
        handler.noteMainFrameNavigation(to: url)
        var last: RecordingTask?
        // Plays the engine: each navigation is reported started (which must not reset the count the handler's own
        // note carries), then requested.
        for _ in 0...PackageSchemeHandler.redirectLimit {
            handler.noteMainFrameNavigation(to: url)
            last = try await fixture.run(url.absoluteString, handler: handler)
            guard let next = navigations.urls.last, next != url else { break }
            url = next
        }
        #expect(navigations.urls.count == PackageSchemeHandler.redirectLimit)
        let limit = MainDocumentRedirectError.tooManyRedirects(url: url, limit: PackageSchemeHandler.redirectLimit)
        #expect(last?.failure == .failed(limit.description))
    }

    @Test func withoutANavigatorMainDocumentsFollowNatively() async throws {
        fixture.network.redirects.withLock { $0["https://shop.example.com/app/start"] = "/app/final.html" }
        let handler = try fixture.handler()
        let start = try #require(URL(string: Self.base + "start"))
        handler.noteMainFrameNavigation(to: start)
        let task = try await fixture.run(start.absoluteString, handler: handler)
        #expect(fixture.network.followed.withLock { $0 } == [true])
        #expect(String(decoding: task.body, as: UTF8.self) == "from https://shop.example.com/app/final.html")
    }
}
