#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Synchronization
import Testing

/// Streamed results: a native AsyncSequence read by the page's `for await` (or a callback per element), with
/// backpressure and cancellation both ways.
@Suite(.serialized) struct BridgeStreamGTKTests {
    /// What the native side saw: elements produced, and streams cancelled.
    static let produced = Mutex(0)
    static let cancelled = Mutex(0)

    static let module = BridgeModule("feed", access: .origins("app://demo", allowsSubframes: true)) { module in
        // 0..<n, produced only when the bridge asks for the next one.
        module.stream("count") { (n: Int, _) in
            let next = Mutex(0)
            return AsyncStream<Int>(
                unfolding: {
                    let value = next.withLock { value in
                        defer { value += 1 }
                        return value
                    }
                    guard value < n else { return nil }
                    produced.withLock { $0 += 1 }
                    return value
                },
                onCancel: {})
        }
        // Endless ticks from a producer of its own; the stream's termination (the bridge stopped reading and
        // dropped it) is what native observes.
        module.stream("ticks") { (_: NoArguments, _) in
            AsyncStream<Int>(bufferingPolicy: .bufferingNewest(1)) { continuation in
                let producer = Task {
                    var tick = 0
                    while !Task.isCancelled {
                        continuation.yield(tick)
                        tick += 1
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                }
                continuation.onTermination = { _ in
                    producer.cancel()
                    cancelled.withLock { $0 += 1 }
                }
            }
        }
        module.stream("failsAfter") { (n: Int, _) in
            let next = Mutex(0)
            return AsyncThrowingStream<String, any Error>(unfolding: {
                let value = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                if value == n { throw BridgeError.badArguments("stopped at \(n)") }
                return "element \(value)"
            })
        }
        module.method("single") { (n: Int, _) in n * 2 }
    }

    static func reset() {
        produced.withLock { $0 = 0 }
        cancelled.withLock { $0 = 0 }
    }

    @Test @GTKActor func tenThousandElementsArriveInOrderWithBoundedReadAhead() async throws {
        Self.reset()
        let page = try await TestPage.ready(modules: [Self.module])
        defer { page.close() }
        let window = BridgeLimits().streamWindow
        // Read ten, then stop reading for a while: native must not run ahead by more than the windows.
        _ = try await page.evaluate(
            """
            (() => {
              window.read = { count: 0, inOrder: true, done: false, error: null };
              window.resume = null;
              (async () => {
                const stream = hybrid.stream('feed', 'count', 10000);
                for await (const value of stream) {
                  if (value !== window.read.count) window.read.inOrder = false;
                  window.read.count += 1;
                  if (window.read.count === 10) await new Promise((resolve) => { window.resume = resolve; });
                }
                window.read.done = true;
              })().catch((e) => { window.read.error = e.code; });
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("window.resume !== null")
        try await Task.sleep(for: .milliseconds(500))
        let ahead = Self.produced.withLock { $0 } - 10
        #expect(ahead <= 3 * window, "native produced \(ahead) elements ahead of the page")
        #expect(ahead > 0)
        _ = try await page.evaluate("window.resume(), true", as: Bool.self)
        try await page.waitFor("window.read.done || window.read.error !== null", timeout: .seconds(30))
        struct Read: Decodable { let count: Int; let inOrder: Bool; let done: Bool; let error: String? }
        let read: Read = try await page.evaluate("window.read")
        #expect(read.count == 10_000 && read.inOrder && read.done && read.error == nil, "\(read)")
        #expect(Self.produced.withLock { $0 } == 10_000)
        #expect(await page.page.bridge.openStreamCount == 0)
    }

    @Test @GTKActor func breakingOutCancelsNativeAndANativeThrowEndsThePagesLoop() async throws {
        Self.reset()
        let page = try await TestPage.ready(modules: [Self.module])
        defer { page.close() }
        let got: Int = try await page.settle(
            """
            (async () => {
              let got = 0;
              for await (const value of hybrid.stream('feed', 'ticks')) { got += 1; if (got === 5) break; }
              return got;
            })()
            """)
        #expect(got == 5)
        try await waitUntil(timeout: .seconds(5)) { Self.cancelled.withLock { $0 } == 1 }
        try await waitUntil(timeout: .seconds(5)) { page.page.bridge.openStreamCount == 0 }

        struct Thrown: Decodable { let got: [String]; let code: String?; let message: String? }
        let thrown: Thrown = try await page.settle(
            """
            (async () => {
              const got = [];
              try {
                for await (const value of hybrid.stream('feed', 'failsAfter', 3)) got.push(value);
                return { got, code: null, message: null };
              } catch (e) {
                return { got, code: e.code, message: e.message };
              }
            })()
            """)
        #expect(thrown.got == ["element 0", "element 1", "element 2"])
        #expect(thrown.code == "bad_arguments" && thrown.message == "stopped at 3", "\(thrown)")

        // The callback form; any other method reads as one element; refusals end the loop with their code.
        let each: [Int] = try await page.settle(
            "(async () => { const all = []; await hybrid.stream('feed', 'count', 4).forEach((v) => all.push(v)); return all; })()"
        )
        #expect(each == [0, 1, 2, 3])
        let single: [Int] = try await page.settle(
            "(async () => { const all = []; for await (const v of hybrid.stream('feed', 'single', 21)) all.push(v); return all; })()"
        )
        #expect(single == [42])
        let refused: [String] = try await page.settle(
            """
            (async () => {
              const codes = [];
              for (const [m, f] of [['feed', 'nope'], ['nope', 'count'], ['feed', 'bad name']]) {
                try { for await (const _ of hybrid.stream(m, f, 1)) {} codes.push('none'); } catch (e) { codes.push(e.code); }
              }
              try { await hybrid.call('feed', 'count', 1); codes.push('none'); } catch (e) { codes.push(e.code); }
              return codes;
            })()
            """)
        #expect(refused == ["unknown_method", "unknown_module", "bad_message", "denied"])
    }

    @Test @GTKActor func hostileStreamsStayBounded() async throws {
        Self.reset()
        let page = try await TestPage.ready(modules: [Self.module])
        defer { page.close() }
        let window = BridgeLimits().streamWindow
        // Opened and never read: native reads at most a few windows of it, then waits.
        _ = try await page.evaluate(
            "(() => { window.unread = [hybrid.stream('feed', 'count', 1000000), hybrid.stream('feed', 'ticks')]; return true; })()",
            as: Bool.self)
        try await Task.sleep(for: .milliseconds(800))
        let unread = Self.produced.withLock { $0 }
        #expect(unread > 0 && unread <= 3 * window, "\(unread)")
        #expect(await page.page.bridge.openStreamCount == 2)

        // 1,000 streams at once, all read to the end.
        struct Many: Decodable { let finished: Int; let wrong: Int }
        let many: Many = try await page.settle(
            """
            (async () => {
              const sums = await Promise.all(Array.from({ length: 1000 }, async () => {
                let sum = 0;
                for await (const v of hybrid.stream('feed', 'count', 20)) sum += v;
                return sum;
              }));
              return { finished: sums.length, wrong: sums.filter((s) => s !== 190).length };
            })()
            """)
        #expect(many.finished == 1000 && many.wrong == 0, "\(many)")
        #expect(await page.page.bridge.openStreamCount == 2)

        // A navigation ends the unread stream natively.
        try await page.load("test/blank.html")
        try await waitUntil(timeout: .seconds(5)) { page.page.bridge.openStreamCount == 0 }
        try await waitUntil(timeout: .seconds(5)) { Self.cancelled.withLock { $0 } == 1 }
    }

    /// A frame that reloads or is removed ends its streams at once (its runtime says `bye` on pagehide): before,
    /// their producers, buffers and slots stayed until the main frame navigated, and a frame reloading in a loop ran
    /// the page out of streams.
    @Test @GTKActor func aFrameThatReloadsOrGoesEndsItsStreams() async throws {
        Self.reset()
        let page = try await TestPage.ready(modules: [Self.module])
        defer { page.close() }
        /// Opens `count` endless streams from the frame's own runtime, each read once.
        func openStreams(_ count: Int) async throws {
            _ = try await page.evaluate(
                """
                (() => {
                  window.__opened = null;
                  (async () => {
                    const child = document.querySelector('iframe').contentWindow;
                    if (!child.hybrid) await new Promise((resolve) => child.addEventListener('load', resolve));
                    await child.hybrid.ready;
                    for (let i = 0; i < \(count); i++) await child.hybrid.stream('feed', 'ticks').next();
                  })().then(() => { window.__opened = 'ok'; }, (e) => { window.__opened = 'failed: ' + e; });
                  return true;
                })()
                """, as: Bool.self)
            try await page.waitFor("window.__opened !== null")
            #expect(try await page.evaluate("window.__opened", as: String.self) == "ok")
        }
        _ = try await page.evaluate(
            """
            (() => {
              const frame = document.createElement('iframe');
              frame.src = 'app://demo/test/blank.html';
              document.body.appendChild(frame);
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("document.querySelector('iframe').contentWindow.hybrid !== undefined")
        try await openStreams(5)
        #expect(await page.page.bridge.openStreamCount == 5)
        _ = try await page.evaluate(
            "(() => { document.querySelector('iframe').contentWindow.location.reload(); return true; })()",
            as: Bool.self)
        try await waitUntil(timeout: .seconds(10)) { page.page.bridge.openStreamCount == 0 }
        // The producers hear their cancellation on their own tasks, a moment after the streams left the table.
        try await waitUntil(timeout: .seconds(5)) { Self.cancelled.withLock { $0 } == 5 }
        try await page.waitFor("document.querySelector('iframe').contentWindow.hybrid !== undefined")
        try await openStreams(3)
        #expect(await page.page.bridge.openStreamCount == 3)
        _ = try await page.evaluate(
            "(() => { document.querySelector('iframe').remove(); return true; })()", as: Bool.self)
        try await waitUntil(timeout: .seconds(10)) { page.page.bridge.openStreamCount == 0 }
        try await waitUntil(timeout: .seconds(5)) { Self.cancelled.withLock { $0 } == 8 }
        // The main document's own streams are untouched by its frames' goodbyes.
        #expect(
            try await page.settle("hybrid.stream('feed', 'count', 3).next().then((r) => r.value)", as: Int.self) == 0)
    }

    @Test @GTKActor func framesReadStreamsThroughTheirOwnChannelAndOnlyWhereAllowed() async throws {
        Self.reset()
        let page = try await TestPage.ready(modules: [Self.module])
        defer { page.close() }
        _ = try await page.evaluate(
            """
            (() => {
              window.frameResults = {};
              window.addEventListener('message', (event) => {
                if (event.data && event.data.streamProbe) window.frameResults[event.data.streamProbe] = event.data;
              });
              for (const [name, attributes, host] of [
                ['same', '', 'demo'], ['other', '', 'other'], ['sandboxed', 'sandbox="allow-scripts"', 'demo'],
              ]) {
                const holder = document.createElement('div');
                holder.innerHTML = `<iframe ${attributes} src="app://${host}/test/stream-probe.html#${name}"></iframe>`;
                document.body.appendChild(holder.firstElementChild);
              }
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("Object.keys(window.frameResults).length === 3", timeout: .seconds(30))
        struct Result: Decodable { let count: Int; let inOrder: Bool; let error: String? }
        let results: [String: Result] = try await page.evaluate("window.frameResults")
        #expect(results["same"]?.count == 1000 && results["same"]?.inOrder == true && results["same"]?.error == nil)
        #expect(results["other"]?.error == "denied" && results["other"]?.count == 0)
        #expect(results["sandboxed"]?.error == "denied" && results["sandboxed"]?.count == 0)
        #expect(await page.page.bridge.openStreamCount == 0)
    }
}
#endif
