import Foundation
import Synchronization
import Testing

@testable import HybridKit

/// Native responses wait until every frame's `document.cookie` copy has what the jar holds, and no frame can make
/// them wait longer than the acknowledgement timeout.
struct DocumentCookieDeliveryTests {
    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    let url = URL(string: "https://shop.example/") ?? URL(filePath: "/")
    let jar = CookieJar()

    func set(_ cookie: String) {
        _ = jar.setCookies([cookie], for: CookieRequest(url: url, api: .http))
    }

    /// Whether `delivery` released a waiter within `wait`.
    func released(_ delivery: DocumentCookieDelivery, within wait: Duration) async -> Bool {
        let done = Flag()
        delivery.whenDelivered { done.set() }
        let deadline = ContinuousClock.now + wait
        while ContinuousClock.now < deadline {
            if done.isSet { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return done.isSet
    }

    @Test func withNoFrameOrAFrameThatIsCurrentNothingWaits() async {
        let delivery = DocumentCookieDelivery(jar: jar, ackTimeout: .seconds(30))
        #expect(await released(delivery, within: .zero))
        set("a=1")
        delivery.pollStarted("main", url: url, known: "a=1")
        #expect(await released(delivery, within: .zero))
    }

    @Test func aResponseWaitsUntilTheFrameAcknowledgesTheNewString() async {
        let delivery = DocumentCookieDelivery(jar: jar, ackTimeout: .seconds(30))
        delivery.pollStarted("main", url: url, known: "")
        set("a=1")  // the response's Set-Cookie, stored before the response is passed on
        let done = Flag()
        delivery.whenDelivered { done.set() }
        #expect(!done.isSet, "the frame's pending read still holds the old string")
        delivery.pollAnswered("main", with: "a=1")
        #expect(!done.isSet, "the answer is on its way, not yet received")
        delivery.pollStarted("main", url: url, known: "a=1")
        #expect(done.isSet)
    }

    /// A new document's first read holds nothing yet, which its `document.cookie` shows as the empty string: with
    /// no cookie for its URL it is not behind, and the empty answer to that read needs no acknowledgement. (Before,
    /// a cold view's first responses waited for that read's round trip.)
    @Test func aFirstReadHoldingNothingIsCurrentWhenTheJarHasNothingForIt() async {
        let delivery = DocumentCookieDelivery(jar: jar, ackTimeout: .seconds(30))
        delivery.pollStarted("main", url: url, known: nil)
        #expect(await released(delivery, within: .zero), "nothing shown, nothing in the jar: current")
        delivery.pollAnswered("main", with: "")
        #expect(await released(delivery, within: .zero), "an empty answer changes nothing the frame shows")
        // The frame still follows the jar: a cookie set now waits for its acknowledgement.
        set("a=1")
        let done = Flag()
        delivery.whenDelivered { done.set() }
        #expect(!done.isSet, "the frame shows nothing of a=1 yet")
        delivery.pollAnswered("main", with: "a=1")
        delivery.pollStarted("main", url: url, known: "a=1")
        #expect(done.isSet)
    }

    /// A first read with a cookie already in the jar is behind until its answer is acknowledged.
    @Test func aFirstReadHoldingNothingIsBehindAJarWithACookie() async {
        let delivery = DocumentCookieDelivery(jar: jar, ackTimeout: .seconds(30))
        set("a=1")
        delivery.pollStarted("main", url: url, known: nil)
        let done = Flag()
        delivery.whenDelivered { done.set() }
        #expect(!done.isSet, "the frame shows nothing, the jar has a=1")
        delivery.pollAnswered("main", with: "a=1")
        #expect(!done.isSet, "the answer is on its way, not yet received")
        delivery.pollStarted("main", url: url, known: "a=1")
        #expect(done.isSet)
    }

    @Test func aFrameThatNeverAcknowledgesDelaysAResponseByTheTimeoutAtMostAndIsDropped() async {
        let delivery = DocumentCookieDelivery(jar: jar, ackTimeout: .milliseconds(100))
        delivery.pollStarted("silent", url: url, known: "")
        set("a=1")
        delivery.pollAnswered("silent", with: "a=1")
        #expect(!(await released(delivery, within: .milliseconds(20))))
        #expect(await released(delivery, within: .seconds(5)))
        // Dropped: the next response does not wait for it.
        #expect(await released(delivery, within: .zero))
    }

    @Test func aFrameThatNavigatedIsNotWaitedFor() async {
        let delivery = DocumentCookieDelivery(jar: jar, ackTimeout: .seconds(30))
        delivery.pollStarted("main", url: url, known: "")
        set("a=1")
        let done = Flag()
        delivery.whenDelivered { done.set() }
        delivery.frameGone("main")
        #expect(done.isSet)
    }

    @Test func aFrameThatAcknowledgesWhatItWasNotSentIsNotWaitedForAgain() async {
        let delivery = DocumentCookieDelivery(jar: jar, ackTimeout: .seconds(30))
        delivery.pollStarted("liar", url: url, known: "")
        set("a=1")
        delivery.pollAnswered("liar", with: "a=1")
        delivery.pollStarted("liar", url: url, known: "forged")
        #expect(await released(delivery, within: .zero))
        delivery.pollStarted("liar", url: url, known: "stale")
        #expect(await released(delivery, within: .zero), "ignored from now on")
    }

    @Test func onlyABoundedNumberOfFramesIsFollowed() async {
        let delivery = DocumentCookieDelivery(jar: jar, ackTimeout: .seconds(30))
        set("a=1")
        for frame in 0..<DocumentCookieDelivery.maxFrames { delivery.pollStarted("f\(frame)", url: url, known: "a=1") }
        delivery.pollStarted("one too many", url: url, known: "old")
        #expect(await released(delivery, within: .zero))
        // Subframes that fill every place do not push the main frame out.
        delivery.pollStarted("main", url: url, known: "old", isMainFrame: true)
        let done = Flag()
        delivery.whenDelivered { done.set() }
        #expect(!done.isSet, "the main frame is behind and followed")
        delivery.pollAnswered("main", with: "a=1")
        delivery.pollStarted("main", url: url, known: "a=1", isMainFrame: true)
        #expect(done.isSet)
    }
}
