import Foundation
import Synchronization
import Testing

@testable import HybridCookies

final class CookieEventLog: Sendable {
    private let events = Mutex<[CookieChange]>([])
    func append(_ change: CookieChange) { events.withLock { $0.append(change) } }
    var all: [CookieChange] { events.withLock { $0 } }
}

@Suite("Jar: change observation")
struct CookieJarObservationTests {
    @Test func reportsAddUpdateRemoveWithCauses() {
        let (jar, clock) = makeCookieJar()
        let log = CookieEventLog()
        let token = jar.addObserver { log.append($0) }
        jar.set("a=1", "https://example.com/")
        jar.set("a=2", "https://example.com/")
        jar.set("b=1; Max-Age=1", "https://example.com/")
        clock.advance(5)
        _ = jar.header("https://example.com/")
        jar.set("a=; Max-Age=0", "https://example.com/")
        jar.set("c=1", "https://example.com/")
        jar.deleteAll()
        let summary = log.all.map { "\($0.kind):\($0.cause):\($0.cookie.name)" }
        #expect(
            summary == [
                "added:explicit:a", "updated:overwritten:a", "added:explicit:b", "removed:expired:b",
                "removed:expired:a", "added:explicit:c", "removed:explicit:c",
            ])
        #expect(log.all[1].previous?.value == "1")
        token.cancel()
        jar.set("d=1", "https://example.com/")
        #expect(log.all.count == 7)
    }

    @Test func rejectedCookiesProduceNoEvents() {
        let (jar, _) = makeCookieJar()
        let log = CookieEventLog()
        let token = jar.addObserver { log.append($0) }
        jar.set("a=1; Domain=other.com", "https://example.com/")
        #expect(log.all.isEmpty)
        withExtendedLifetime(token) {}
    }

    @Test func observerMayCallBackIntoTheJar() {
        let (jar, _) = makeCookieJar()
        let log = CookieEventLog()
        let token = jar.addObserver { change in
            _ = jar.count  // would deadlock if observers ran under the lock
            log.append(change)
        }
        jar.set("a=1", "https://example.com/")
        #expect(log.all.count == 1)
        withExtendedLifetime(token) {}
    }

    @Test func asyncStream() async {
        let (jar, _) = makeCookieJar()
        let stream = jar.changes()
        jar.set("a=1", "https://example.com/")
        jar.set("b=1", "https://example.com/")
        var names: [String] = []
        for await change in stream {
            names.append(change.cookie.name)
            if names.count == 2 { break }
        }
        #expect(names == ["a", "b"])
    }

    @Test func concurrentUseIsSafe() async {
        let (jar, _) = makeCookieJar {
            $0.maxCookies = 100_000
            $0.maxCookiesPerDomain = 1000
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        jar.set("w\(worker)i\(index)=1", "https://example\(index % 10).com/")
                        _ = jar.header("https://example\(index % 10).com/")
                    }
                }
            }
        }
        #expect(jar.count == 1600)
    }
}
