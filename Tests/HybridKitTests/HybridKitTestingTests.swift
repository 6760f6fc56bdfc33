import Foundation
import HybridKit
import HybridKitTesting
import Testing

/// The public test doubles behave as their documentation says: apps' tests rely on them.
@Suite @EngineActor struct HybridKitTestingTests {
    final class Inbox: ScriptMessageHandler, @unchecked Sendable {
        // Touched on the engine's actor only (FakeEngine's executor).
        var received: [ScriptMessage] = []
        func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
            received.append(message)
            reply?.resolve(json: "true")
        }
    }

    @Test @EngineActor func fakeEngineRecordsWhatItIsAskedAndDeliversMessages() async throws {
        let engine = FakeEngine()
        let script = UserScript(source: "1")
        engine.addUserScript(script)
        engine.addUserScript(UserScript(source: "2"))
        engine.addUserScript(script)
        engine.removeUserScript(script)
        #expect(engine.userScripts.map(\.source) == ["2", "1"], "the first equal script goes")

        try engine.load(EngineRequest(url: try #require(URL(string: "https://a.example/"))))
        engine.reload()
        engine.stopLoading()
        #expect(engine.loadLog == ["load https://a.example/", "reload", "stop"])
        #expect(engine.stops == 1)

        engine.evaluationResult = { script throws(EngineError) in
            if script == "boom" { throw .javaScript("boom") }
            return "42"
        }
        #expect(try await engine.evaluateJavaScript("6 * 7") == "42")
        await #expect(throws: EngineError.javaScript("boom")) { try await engine.evaluateJavaScript("boom") }
        #expect(engine.evaluations == ["6 * 7", "boom"])

        let inbox = Inbox()
        engine.addScriptMessageHandler(inbox, name: "x", replies: true)
        let reply = RecordingReply()
        engine.deliver(ScriptMessage(name: "x", body: .string("hi")), reply: reply)
        engine.deliver(ScriptMessage(name: "nobody", body: .string("lost")))
        #expect(inbox.received.map(\.body) == [.string("hi")])
        #expect(reply.resolved == ["true"])

        #expect(!engine.verifiesMessageFrames)
        engine.verifiesFrames = true
        #expect(engine.verifiesMessageFrames)
        #expect(engine.cookieStore === engine.cookies, "one cookie store per engine")
        engine.close()
        #expect(engine.closed)
    }

    @Test func recordingTaskKeepsEveryCallInOrder() async throws {
        let task = RecordingTask(EngineRequest(url: try #require(URL(string: "app://a/x"))))
        #expect(!task.isEnded)
        task.respond(status: 201, headers: ["A": "b"], body: Data(#"{"k":1}"#.utf8))
        task.send(Data("late".utf8))
        #expect(task.response?.statusCode == 201)
        #expect(task.finished && task.isEnded && task.failure == nil)
        #expect(task.events.count == 4, "respond, send, finish, and the late send a real task would ignore")
        #expect(try await task.ended(timeout: .milliseconds(10)).isEnded)
    }

    @Test func fakeCookieStoreCountsWritesAndReportsChanges() async throws {
        let store = FakeCookieStore(unsetSameSiteIsNone: true)
        let changes = Counter()
        store.observeChanges { changes.add() }
        try await store.setCookie(EngineCookie(name: "a", value: "1", domain: "a.example"))
        store.engineSets(EngineCookie(name: "b", value: "2", domain: "a.example"))
        #expect(store.writes == 1, "changes the engine makes itself are not writes")
        #expect(store.all.map(\.sameSite) == [EngineCookie.SameSite.none, EngineCookie.SameSite.none])
        try await store.deleteCookie(EngineCookie(name: "a", value: "", domain: "a.example"))
        #expect(try await store.cookies(for: nil).map(\.name) == ["b"])
        #expect(changes.value == 3)
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
