#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Synchronization
import Testing

/// Synchronous calls: one prompt() round trip the page's runtime makes and HybridPage answers before the host
/// sees any dialog, only for methods declared synchronous, with a time limit, from the frame the engine names.
@Suite(.serialized) struct BridgeSyncCallGTKTests {
    /// Records what reaches the host: dialogs and close requests.
    final class Host: EngineUIDelegate, @unchecked Sendable {
        // Touched on GTK's thread only.
        var dialogs: [ScriptDialog] = []
        var closeRequests = 0
        func runScriptDialog(_ dialog: ScriptDialog, reply: any ScriptDialogReply) {
            dialogs.append(dialog)
            reply.answer(.text("from the host"))
        }
        func pageDidRequestClose() { closeRequests += 1 }
    }

    static let cancelled = Mutex(0)

    static let module = BridgeModule("sync", access: .origins("app://demo", allowsSubframes: true)) { module in
        module.method("echo", synchronous: true) { (value: JSONValue, _) in value }
        module.method("later", synchronous: true) { (value: Int, _) async throws in
            try await Task.sleep(for: .milliseconds(20))
            return value + 1
        }
        module.method("stuck", timeout: .milliseconds(300), synchronous: true) { (_: NoArguments, _) async throws in
            do {
                try await Task.sleep(for: .seconds(20))
            } catch {
                cancelled.withLock { $0 += 1 }
                throw error
            }
            return "too late"
        }
        module.method("plain") { (_: NoArguments, _) in "only asynchronously" }
        module.method("fails", synchronous: true) { (_: NoArguments, _) -> String in
            throw BridgeError.badArguments("no, thank you")
        }
    }

    @Test @GTKActor func aSynchronousCallAnswersInTheSameTurn() async throws {
        let page = try TestPage(modules: [Self.module])
        defer { page.close() }
        try await page.load("test/blank.html")
        struct Outcome: Decodable {
            let value: JSONValue
            let microtaskRan: Bool
            let later: Int
        }
        // A microtask queued before the call has not run when it returns: the value came in the same turn.
        let outcome: Outcome = try await page.evaluate(
            """
            (() => {
              let microtaskRan = false;
              Promise.resolve().then(() => { microtaskRan = true; });
              const value = hybrid.callSync('sync', 'echo', { list: [1, 'two', null], nested: { ok: true } });
              const later = hybrid.callSync('sync', 'later', 41);
              return { value, microtaskRan, later };
            })()
            """)
        #expect(
            outcome.value
                == .object([
                    "list": .array([.number(1), .string("two"), .null]), "nested": .object(["ok": .bool(true)]),
                ]))
        #expect(!outcome.microtaskRan)
        #expect(outcome.later == 42)

        struct Failure: Decodable {
            let code: String
            let message: String
            let isHybridError: Bool
            let elapsed: Double
        }
        func failure(_ call: String) async throws -> Failure {
            try await page.evaluate(
                """
                (() => {
                  const started = performance.now();
                  try { \(call); return { code: 'none', message: '', isHybridError: false, elapsed: 0 }; }
                  catch (e) { return { code: e.code, message: e.message, isHybridError: e instanceof hybrid.HybridError, elapsed: performance.now() - started }; }
                })()
                """)
        }
        // Past its limit the call throws the typed error (and the page is free again), and the native task is cancelled.
        let stuck = try await failure("hybrid.callSync('sync', 'stuck')")
        #expect(stuck.code == "timeout" && stuck.isHybridError, "\(stuck)")
        #expect(stuck.elapsed >= 250 && stuck.elapsed < 5000, "\(stuck.elapsed) ms")
        try await waitUntil(timeout: .seconds(5)) { Self.cancelled.withLock { $0 } == 1 }
        // Only methods declared synchronous; errors keep their code; names are checked before anything is sent.
        #expect(try await failure("hybrid.callSync('sync', 'plain')").code == "denied")
        #expect(try await failure("hybrid.callSync('sync', 'fails')").code == "bad_arguments")
        #expect(try await failure("hybrid.callSync('sync', 'nope')").code == "unknown_method")
        #expect(try await failure("hybrid.callSync('nope', 'echo')").code == "unknown_module")
        #expect(try await failure("hybrid.callSync('sync', 'bad name!')").code == "bad_message")
        #expect(
            try await failure("(() => { const a = {}; a.a = a; hybrid.callSync('sync', 'echo', a); })()").code
                == "bad_arguments")
        // The same methods still answer asynchronous calls.
        #expect(try await page.settle("hybrid.call('sync', 'echo', 5)", as: Int.self) == 5)

        // `has` says how a method can be called.
        struct Has: Decodable { let echo: String?, plain: String?, nope: String?, module: String?, split: String? }
        let has: Has = try await page.evaluate(
            "({ echo: hybrid.has('sync.echo'), plain: hybrid.has('sync.plain'), nope: hybrid.has('sync.nope'), module: hybrid.has('nope.echo'), split: hybrid.has('sync', 'echo') })"
        )
        #expect(has.echo == "sync" && has.plain == "async" && has.split == "sync")
        #expect(has.nope == nil && has.module == nil)
    }

    @Test @GTKActor func thePagesOwnPromptStillReachesTheHostAndCannotReachTheBridge() async throws {
        let page = try TestPage(modules: [Self.module])
        defer { page.close() }
        let host = Host()
        page.page.uiDelegate = host
        try await page.load("test/blank.html")
        #expect(try await page.evaluate("prompt('Your name?', 'Ada')", as: String?.self) == "from the host")
        // A page writing the synchronous format itself lacks the runtime's key: the host gets it as a dialog.
        let forged: String? = try await page.evaluate(
            #"prompt('H1sync 00000000000000000000000000000000\nH1 call 1 0011223344556677 main app://demo sync echo\n1')"#
        )
        #expect(forged == "from the host")
        // A page that replaced prompt() does not see the runtime's calls (and its replacement is not called).
        struct Replaced: Decodable { let value: Int; let seen: [String] }
        let replaced: Replaced = try await page.evaluate(
            """
            (() => {
              const seen = [];
              window.prompt = (message) => { seen.push(String(message)); return '{"ok":true,"r":666}'; };
              return { value: hybrid.callSync('sync', 'echo', 7), seen };
            })()
            """)
        #expect(replaced.value == 7 && replaced.seen.isEmpty)
        #expect(host.dialogs.count == 2)
        #expect(host.dialogs.first?.message == "Your name?")
        #expect(host.dialogs.last?.message.hasPrefix("H1sync ") == true)
        #expect(host.dialogs.allSatisfy { $0.frame == nil })

        // window.close() in the main frame reaches the host.
        _ = try await page.evaluate("window.close(), true", as: Bool.self)
        try await waitUntil(timeout: .seconds(5)) { host.closeRequests == 1 }
    }
}
#endif
