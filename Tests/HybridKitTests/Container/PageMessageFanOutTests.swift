import Foundation
import HybridTestSupport
import Testing

@testable import HybridKit

/// Page messages for names nobody listens to yet are kept, within bounds a flooding page cannot move; what is
/// dropped is logged.
@Suite(.serialized) struct PageMessageFanOutTests {
    func message(_ name: String, _ value: Int) -> HybridKit.PageMessage {
        HybridKit.PageMessage(name: name, value: .number(Double(value)), origin: "app://demo", isMainFrame: true)
    }

    func drain(_ stream: AsyncStream<HybridKit.PageMessage>, count: Int) async -> [HybridKit.PageMessage] {
        var taken: [HybridKit.PageMessage] = []
        for await message in stream {
            taken.append(message)
            if taken.count == count { break }
        }
        return taken
    }

    @Test func aNameKeepsAtMostItsBoundUntilSomeoneListensAndTheRestIsLogged() async {
        let logs = LogCapture.installed()
        logs.reset()
        let fanOut = PageMessageFanOut()
        for value in 0..<(PageMessageFanOut.pendingPerName + 10) { fanOut.deliver(message("flood", value)) }
        #expect(logs.count("hybrid.container", PageMessageFanOut.droppedAdvice) == 10)
        let stream = fanOut.stream("flood")
        fanOut.deliver(message("flood", 999))
        let taken = await drain(stream, count: PageMessageFanOut.pendingPerName + 1)
        #expect(taken.prefix(3).map(\.value) == [.number(0), .number(1), .number(2)], "oldest first")
        #expect(taken.last?.value == .number(999), "a listener gets what comes after")
    }

    @Test func onlyBoundedlyManyNamesWaitForAListener() {
        let logs = LogCapture.installed()
        logs.reset()
        let fanOut = PageMessageFanOut()
        for index in 0..<(PageMessageFanOut.pendingNames + 5) { fanOut.deliver(message("name\(index)", index)) }
        #expect(logs.count("hybrid.container", PageMessageFanOut.droppedAdvice) == 5)
    }

    @Test func everyListenerOfANameHearsItAndClosingEndsThem() async {
        let fanOut = PageMessageFanOut()
        let first = fanOut.stream("done")
        let second = fanOut.stream("done")
        fanOut.deliver(message("done", 1))
        fanOut.finish()
        #expect(await drain(first, count: 10).map(\.value) == [.number(1)])
        #expect(await drain(second, count: 10).map(\.value) == [.number(1)])
        // After closing, nothing is kept and a new listener's sequence ends at once.
        fanOut.deliver(message("late", 2))
        #expect(await drain(fanOut.stream("late"), count: 10).isEmpty)
    }
}
