#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitGTK
import HybridKitTesting
import Synchronization
import Testing

@testable import HybridKit

/// Binary values in real WebKitGTK: bytes both ways through the bridge's scheme, and the threat model's lines
/// (BridgeGuarantees.md): redeemed once, only by the origin they are for, ids nobody guesses, bounded size and
/// time, freed when abandoned, and a call cancelled while its bytes are in flight leaves nothing behind.
@Suite(.serialized) struct BridgeBytesGTKTests {
    struct Upload: Codable, Sendable {
        let name: String
        let data: Data
        let more: [Data]
    }

    struct Echoed: Codable, Sendable {
        let name: String
        let sizes: [Int]
        let first: Data
        let joined: Data
    }

    /// Set when a method that holds its call was cancelled.
    static let cancelled = Mutex(0)

    static let module = BridgeModule("bin", access: .origins("bt://main", allowsSubframes: true)) { module in
        module.method("echo") { (upload: Upload, _) in
            Echoed(
                name: upload.name, sizes: [upload.data.count] + upload.more.map(\.count), first: upload.data,
                joined: upload.more.reduce(Data(), +))
        }
        module.method("make") { (size: Int, _) in Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }) }
        module.method("size") { (data: Data, _) in data.count }
        module.method("hold") { (data: Data, _) async throws -> Int in
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                cancelled.withLock { $0 += 1 }
                throw error
            }
            return data.count
        }
        module.method("text", synchronous: true) { (_: NoArguments, _) in Data([1, 2, 3]) }
        module.stream("chunks") { (count: Int, _) in
            AsyncStream<Data> { continuation in
                for index in 0..<count { continuation.yield(Data(repeating: UInt8(index), count: index + 1)) }
                continuation.finish()
            }
        }
        module.method("announce") { (size: Int, call) async throws -> Bool in
            try await call.bridge?.emit("bytes", ["payload": Data(repeating: 9, count: size)])
            return true
        }
    }

    /// Callable by the main frame of `bt://main` only.
    static let mainFrameOnly = BridgeModule("mainOnly", access: .origins("bt://main")) { module in
        module.method("size") { (data: Data, _) in data.count }
    }

    /// A page at `bt://main/` with an iframe of another origin (`bt://other/`) that fetches what it is told to and
    /// reports the status, and a sandboxed (opaque-origin) one that does the same.
    static let pages: [String: String] = [
        "main/index.html": """
        <!doctype html><meta charset="utf-8"><body>
        <iframe id="other" src="bt://other/frame.html"></iframe>
        <iframe id="sandboxed" sandbox="allow-scripts" src="bt://main/frame.html"></iframe>
        <iframe id="same" src="bt://main/frame.html"></iframe>
        <script>
        window.reports = new Map();
        let next = 0;
        window.addEventListener('message', (e) => {
          if (e.data && e.data.report !== undefined) window.reports.set(e.data.report, e.data.result);
        });
        window.ask = (frame, request) => {
          const id = ++next;
          document.getElementById(frame).contentWindow.postMessage({ id, ...request }, '*');
          return id;
        };
        window.fetchHere = async (url, init) => {
          try {
            const r = await fetch(url, init || {});
            return { status: r.status, size: (await r.arrayBuffer()).byteLength };
          } catch (e) { return { error: String(e) }; }
        };
        </script>
        """,
        "main/frame.html": Self.frame,
        "other/frame.html": Self.frame,
        // A real client page's policy that names only its own origin for fetches: the runtime's fetches of the
        // bridge's scheme are the engine's to refuse.
        "main/csp.html": """
        <!doctype html><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="connect-src 'self'">
        <body>csp</body>
        """,
    ]

    static let frame = """
        <!doctype html><script>
        window.addEventListener('message', async (e) => {
          const { id, url, method, size, call, module } = e.data;
          let result;
          try {
            if (call) {
              result = { value: await hybrid.call(module || 'bin', call, new Uint8Array(size)) };
            } else {
              const r = await fetch(url, { method: method || 'GET', body: size ? new Uint8Array(size) : undefined });
              result = { status: r.status, size: (await r.arrayBuffer()).byteLength };
            }
          } catch (err) { result = { error: String(err && (err.code || err.message) || err) }; }
          parent.postMessage({ report: id, result }, '*');
        });
        </script>
        """

    struct Report: Decodable, Equatable {
        var status: Int?
        var size: Int?
        var error: String?
        var value: Int?
    }

    @GTKActor
    static func open(_ configure: (inout BridgeConfiguration) -> Void = { _ in }) async throws -> TestPage {
        var configuration = BridgeConfiguration()
        configure(&configuration)
        let page = try TestPage(modules: [Self.module, Self.mainFrameOnly], configuration: configuration)
        try page.serve(Self.pages, scheme: "bt", loading: "bt://main/index.html")
        try await page.waitFor("window.hybrid && hybrid.isReady && document.readyState === 'complete'")
        return page
    }

    /// Runs `script` (an async function body returning a JSON value) in the page and returns what it returned.
    @GTKActor
    static func run<T: Decodable>(_ page: TestPage, _ script: String, as type: T.Type = T.self) async throws -> T {
        _ = try await page.view.evaluateJavaScript(
            """
            window.__ran = undefined;
            (async () => { \(script) })().then((v) => { window.__ran = { v }; }, (e) => { window.__ran = { v: 'threw ' + e }; });
            true
            """)
        try await page.waitFor("window.__ran !== undefined", timeout: .seconds(60))
        return try await page.evaluate("window.__ran.v")
    }

    @GTKActor
    static func ask(_ page: TestPage, _ frame: String, _ request: String) async throws -> Report {
        let id: Int = try await page.evaluate("ask('\(frame)', \(request))")
        try await page.waitFor("reports.has(\(id))")
        return try await page.evaluate("reports.get(\(id))")
    }

    @GTKActor
    static func fetchHere(_ page: TestPage, _ url: String, _ options: String = "{}") async throws -> Report {
        _ = try await page.view.evaluateJavaScript(
            "fetchHere('\(url)', \(options)).then((r) => { window.fetched = r; }), true")
        try await page.waitFor("window.fetched")
        let report: Report = try await page.evaluate("window.fetched")
        _ = try await page.view.evaluateJavaScript("window.fetched = undefined")
        return report
    }

    @Test @GTKActor func bytesTravelBothWaysWithoutJSON() async throws {
        let page = try await Self.open()
        defer { page.close() }
        struct Outcome: Decodable, Equatable {
            let name: String
            let sizes: [Int]
            let first: [Int]
            let joined: [Int]
            let made: Int
            let madeOK: Bool
            let stream: [Int]
            let event: Int
            let sync: String
        }
        _ = try await page.view.evaluateJavaScript(
            """
            (async () => {
              const buffer = new Uint8Array([1, 2, 3, 4]).buffer;
              const view = new Uint8Array([9, 9, 5, 6, 7, 9]).subarray(2, 5);
              const blob = new Blob([new Uint8Array([8, 8])]);
              const echoed = await hybrid.call('bin', 'echo', { name: 'n', data: buffer, more: [view, blob, new DataView(new ArrayBuffer(0))] });
              const made = await hybrid.call('bin', 'make', 300000);
              const bytes = new Uint8Array(made);
              let madeOK = made instanceof ArrayBuffer;
              for (let i = 0; i < bytes.length; i++) if (bytes[i] !== ((i * 7) & 255)) { madeOK = false; break; }
              const stream = [];
              for await (const chunk of hybrid.stream('bin', 'chunks', 3)) stream.push(chunk.byteLength);
              const event = new Promise((resolve) => hybrid.on('bytes', (d) => resolve(d.payload.byteLength)));
              await hybrid.call('bin', 'announce', 70000);
              let sync;
              try { hybrid.callSync('bin', 'text'); sync = 'answered'; } catch (e) { sync = e.code; }
              window.outcome = { name: echoed.name, sizes: echoed.sizes, first: Array.from(new Uint8Array(echoed.first)),
                joined: Array.from(new Uint8Array(echoed.joined)), made: made.byteLength, madeOK, stream,
                event: await event, sync };
            })().catch((e) => { window.outcome = { error: String(e && e.message) }; }), true
            """)
        try await page.waitFor("window.outcome")
        let outcome: Outcome = try await page.evaluate("window.outcome")
        #expect(
            outcome
                == Outcome(
                    name: "n", sizes: [4, 3, 2, 0], first: [1, 2, 3, 4], joined: [5, 6, 7, 8, 8], made: 300_000,
                    madeOK: true, stream: [1, 2, 3], event: 70_000, sync: "bad_arguments"))
        #expect(await page.page.bridge.heldBinaryBytes == 0, "every answer's bytes were fetched, and freed")
        // A same-origin subframe's binary call answers through its upload.
        let sub = try await Self.ask(page, "same", "{ call: 'size', size: 5000 }")
        #expect(sub.value == 5000)
    }

    /// Bytes are handed once, to the origin they are for: another origin's frame, an opaque-origin frame and
    /// another view get the same 404 as for an unknown id and leave them for their owner; the owner's second
    /// fetch (a replay) finds nothing.
    @Test @GTKActor func onlyTheOwnerRedeemsAndOnlyOnce() async throws {
        let page = try await Self.open()
        defer { page.close() }
        let id = try page.page.bridge.redemptions.register(Data(count: 1000), owner: "bt://main")
        let url = "bt://bridge".replacingOccurrences(of: "bt", with: "hybrid-bytes") + "/d/\(id)"
        let other = try await Self.ask(page, "other", "{ url: '\(url)' }")
        #expect(other.status == 404, "another origin's frame: \(other)")
        let sandboxed = try await Self.ask(page, "sandboxed", "{ url: '\(url)' }")
        #expect(sandboxed.status != 200, "an opaque-origin frame: \(sandboxed)")
        #expect(page.page.bridge.redemptions.heldBytes == 1000, "refused fetches leave the bytes for their owner")
        let owner = try await Self.fetchHere(page, url)
        #expect(owner == Report(status: 200, size: 1000))
        let replay = try await Self.fetchHere(page, url)
        #expect(replay.status == 404, "an id is good once: \(replay)")
        #expect(page.page.bridge.redemptions.heldBytes == 0)
    }

    /// Ids are 128 random bits: guessed ones (and malformed ones) find nothing and take nothing.
    @Test @GTKActor func guessedIdsFindNothing() async throws {
        let page = try await Self.open()
        defer { page.close() }
        _ = try page.page.bridge.redemptions.register(Data(count: 10), owner: "bt://main")
        _ = try await page.view.evaluateJavaScript(
            """
            (async () => {
              const statuses = new Set();
              const hex = (n) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, '0')).join('');
              const ids = [...Array.from({ length: 200 }, () => hex(16)), '0'.repeat(32), 'G'.repeat(32), hex(15), hex(17), '../d/x'];
              for (const id of ids) {
                for (const path of ['d/', 'u/']) {
                  try {
                    const r = await fetch('hybrid-bytes://bridge/' + path + id, { method: path === 'u/' ? 'POST' : 'GET', body: path === 'u/' ? new Blob(['x']) : undefined });
                    statuses.add(r.status);
                  } catch (e) { statuses.add('network error'); }
                }
              }
              window.guessed = Array.from(statuses);
            })(), true
            """)
        try await page.waitFor("window.guessed", timeout: .seconds(60))
        let statuses: [JSONValue] = try await page.evaluate("window.guessed")
        // A 404, or a network error where WebKit refuses a request before native sees it: never a success.
        #expect(!statuses.isEmpty && statuses.allSatisfy { [.number(404), .string("network error")].contains($0) })
        #expect(page.page.bridge.redemptions.heldBytes == 10, "and takes nothing")
    }

    /// An upload is read only from the origin whose call native admitted: another origin's POST under the awaited
    /// id is not even read (a Blob body from it could crash WebKitGTK), and the id stays its owner's.
    @Test @GTKActor func anUploadIsTakenOnlyFromItsCallersOrigin() async throws {
        let page = try await Self.open()
        defer { page.close() }
        let handler = try #require(await page.page.bridge.bytesHandler)
        let id = ByteRedemptions.randomID()
        handler.expectUpload(id, from: "bt://main")
        let forged = try await Self.ask(
            page, "other", "{ url: 'hybrid-bytes://bridge/u/\(id)', method: 'POST', size: 10 }")
        #expect(forged.status == 404, "another origin's upload: \(forged)")
        #expect(
            handler.mayReadBody(
                of: EngineRequest(
                    url: try #require(URL(string: "hybrid-bytes://bridge/u/\(id)")), method: "POST",
                    headers: [("Origin", "bt://main")])), "the id is still its owner's")
        handler.forgetUpload(id)
    }

    /// Sizes are bounded before a byte moves: a call's bytes over `maxBinaryBytes` are refused by the runtime and by
    /// native, and so is an answer's.
    @Test @GTKActor func oversizedBytesAreRefused() async throws {
        let page = try await Self.open { $0.limits.maxBinaryBytes = 64 << 10 }
        defer { page.close() }
        _ = try await page.view.evaluateJavaScript(
            """
            (async () => {
              const codes = [];
              for (const run of [() => hybrid.call('bin', 'size', new ArrayBuffer(65 << 10)), () => hybrid.call('bin', 'make', 65 << 10)]) {
                try { await run(); codes.push('answered'); } catch (e) { codes.push(e.code); }
              }
              codes.push(await hybrid.call('bin', 'size', new ArrayBuffer(64 << 10)));
              window.codes = codes;
            })(), true
            """)
        try await page.waitFor("window.codes")
        let codes: [JSONValue] = try await page.evaluate("window.codes")
        #expect(codes == [.string("bad_arguments"), .string("bad_arguments"), .number(65536)])
        // A message that announces more than the limit natively (past a page's own check) is refused as it is read.
        let parser = InboundMessageParser(limits: page.page.bridge.configuration.limits)
        let refused = parser.parseBatch("H1 bcall 1 0123456789abcdef main bt://main bin size\n[70000] null")
        guard case .failure(let error)? = refused.first else {
            Issue.record("a binary call over the limit was read: \(refused)")
            return
        }
        #expect(error.error.code == .badArguments)
    }

    /// Bytes nobody fetches are freed at `byteRedemptionTimeout`, and at once when the document goes away.
    @Test @GTKActor func abandonedBytesAreFreed() async throws {
        let page = try await Self.open { $0.limits.byteRedemptionTimeout = .milliseconds(300) }
        defer { page.close() }
        let redemptions = page.page.bridge.redemptions
        _ = try redemptions.register(Data(count: 5000), owner: "bt://main")
        #expect(redemptions.heldBytes == 5000)
        try await waitUntil(timeout: .seconds(10)) { redemptions.heldBytes == 0 }
        _ = try redemptions.register(Data(count: 5000), owner: "bt://main")
        try page.view.load(EngineRequest(url: try #require(URL(string: "bt://main/index.html?again"))))
        try await waitUntil(timeout: .seconds(10)) { redemptions.heldBytes == 0 }
    }

    /// A call whose bytes are uploaded and whose method still runs when the page navigates away is cancelled, and
    /// leaves no pending call, awaited upload or held bytes; one whose bytes never come fails at its limit.
    @Test @GTKActor func cancellationMidTransferLeavesNothing() async throws {
        let page = try await Self.open()
        defer { page.close() }
        let before = Self.cancelled.withLock { $0 }
        _ = try await page.view.evaluateJavaScript(
            "hybrid.call('bin', 'hold', new ArrayBuffer(4 << 20)).catch(() => {}), true")
        let bridge = page.page.bridge
        try await waitUntil(timeout: .seconds(20)) {
            let pending = bridge.pendingCallCount
            let awaited = bridge.awaitedUploadCount
            return pending == 1 && awaited == 0
        }
        try page.view.load(EngineRequest(url: try #require(URL(string: "bt://main/index.html?next"))))
        try await waitUntil(timeout: .seconds(20)) { Self.cancelled.withLock { $0 } == before + 1 }
        #expect(await bridge.pendingCallCount == 0)
        #expect(await bridge.awaitedUploadCount == 0)
        #expect(bridge.redemptions.heldBytes == 0)
    }

    /// Arguments that refer to themselves, or share one object many times, are walked once: a cycle is refused with
    /// `bad_arguments` as JSON would refuse it, and shared bytes arrive once per place. (The runtime used to look for
    /// bytes in every path through such a graph: two self-references made it 2^64 paths, and the page hung.)
    @Test(.timeLimit(.minutes(2))) @GTKActor func cyclicAndSharedArgumentsAreRefusedOrSentNeverHung() async throws {
        let page = try await Self.open()
        defer { page.close() }
        struct Outcome: Decodable, Equatable {
            let cyclicWithBytes: String
            let cyclicWithout: String
            let sharedSizes: [Int]
            let sharedJoined: [Int]
        }
        let outcome: Outcome = try await Self.run(
            page,
            """
            const code = (p) => p.then(() => 'answered', (e) => e.code);
            const a = { name: 'c', data: new Uint8Array(3), more: [] };
            a.self = a; a.again = a;
            const b = { name: 'c' };
            b.self = b; b.again = b;
            const shared = new Uint8Array([4, 5]);
            const echoed = await hybrid.call('bin', 'echo', { name: 's', data: shared, more: [shared, shared] });
            return { cyclicWithBytes: await code(hybrid.call('bin', 'echo', a)),
              cyclicWithout: await code(hybrid.call('bin', 'echo', b)),
              sharedSizes: echoed.sizes, sharedJoined: Array.from(new Uint8Array(echoed.joined)) };
            """)
        #expect(
            outcome
                == Outcome(
                    cyclicWithBytes: "bad_arguments", cyclicWithout: "bad_arguments", sharedSizes: [2, 2, 2],
                    sharedJoined: [4, 5, 4, 5]))
        #expect(await page.page.bridge.awaitedUploadCount == 0, "a refused call leaves no upload awaited")
    }

    /// Byte values a page shapes to mislead: each is refused with a typed error or sent as the bytes it really
    /// holds; none crashes, hangs, or makes native read other bytes than the call announced.
    @Test @GTKActor func hostileByteValuesAreRefusedOrSentAsTheyAre() async throws {
        let page = try await Self.open()
        defer { page.close() }
        let outcome: [String: String] = try await Self.run(
            page,
            """
            const out = {};
            const code = async (name, p) => { try { out[name] = 'value ' + JSON.stringify(await p); } catch (e) { out[name] = e.code; } };
            const detached = new ArrayBuffer(8);
            structuredClone(detached, { transfer: [detached] });
            await code('detached', hybrid.call('bin', 'size', detached));
            const later = new ArrayBuffer(1000);
            const laterCall = hybrid.call('bin', 'size', later);
            structuredClone(later, { transfer: [later] });
            await code('detachedAfterTheCall', laterCall);
            await code('proxy', hybrid.call('bin', 'size', new Proxy(new ArrayBuffer(4), {})));
            const throwing = new Uint8Array(10);
            Object.defineProperty(throwing, 'byteLength', { get() { throw new Error('no'); } });
            await code('throwingByteLength', hybrid.call('bin', 'size', throwing));
            const lying = new Uint8Array(10);
            Object.defineProperty(lying, 'byteLength', { get() { return 3; } });
            await code('lyingByteLengthOfTwoParts', hybrid.call('bin', 'echo', { name: 'l', data: lying, more: [lying] }));
            class Huge extends Uint8Array { get byteLength() { return 1e12; } }
            await code('hugeSubclass', hybrid.call('bin', 'size', new Huge(4)));
            class Negative extends Uint8Array { get byteLength() { return -5; } }
            await code('negativeSubclass', hybrid.call('bin', 'echo', { name: 'n', data: new Negative(4), more: [new Uint8Array(1)] }));
            class Fractional extends Uint8Array { get byteLength() { return 1.5; } }
            await code('fractionalSubclass', hybrid.call('bin', 'echo', { name: 'f', data: new Fractional(4), more: [new Uint8Array(1)] }));
            class LyingBlob extends Blob { arrayBuffer() { return Promise.resolve(new ArrayBuffer(1)); } get size() { return 1; } }
            await code('blobSubclass', hybrid.call('bin', 'size', new LyingBlob(['abc'])));
            await code('dataView', hybrid.call('bin', 'size', new DataView(new ArrayBuffer(16), 4, 8)));
            out.sharedArrayBuffer = typeof SharedArrayBuffer;
            return out;
            """)
        #expect(
            outcome == [
                "detached": "value 0", "detachedAfterTheCall": "bad_arguments", "proxy": "bad_arguments",
                "throwingByteLength": "bad_arguments", "lyingByteLengthOfTwoParts": "bad_arguments",
                "hugeSubclass": "bad_arguments", "negativeSubclass": "bad_message", "fractionalSubclass": "bad_message",
                "blobSubclass": "value 3", "dataView": "value 8", "sharedArrayBuffer": "undefined",
            ], "\(outcome)")
        try await waitUntil(timeout: .seconds(40)) { page.page.bridge.pendingCallCount == 0 }
        #expect(page.page.bridge.redemptions.heldBytes == 0)
    }

    /// A binary call is admitted by the module's access exactly as a JSON call: a same-origin subframe calling a
    /// module that allows the main frame only, and a frame of another origin, are refused with `denied` before any
    /// upload id is issued, and the main frame's call goes through.
    @Test @GTKActor func aBinaryCallIsAdmittedByAccessAsAnyCall() async throws {
        let page = try await Self.open()
        defer { page.close() }
        let same = try await Self.ask(page, "same", "{ call: 'size', size: 10, module: 'mainOnly' }")
        #expect(same.error == "denied", "a same-origin subframe: \(same)")
        let other = try await Self.ask(page, "other", "{ call: 'size', size: 10, module: 'mainOnly' }")
        #expect(other.error == "denied", "another origin's frame: \(other)")
        let otherOnBin = try await Self.ask(page, "other", "{ call: 'size', size: 10 }")
        #expect(otherOnBin.error == "denied", "another origin's frame on a module naming bt://main: \(otherOnBin)")
        #expect(await page.page.bridge.awaitedUploadCount == 0, "no upload id was issued")
        let main: Int = try await Self.run(page, "return await hybrid.call('mainOnly', 'size', new Uint8Array(10));")
        #expect(main == 10)
    }

    /// Many binary calls at once cannot make native hold more than `maxBinaryBytesInFlight` of their bytes (each
    /// upload is copied whole into the app, and a running method holds it): a call past it is refused with `denied`
    /// before its bytes move, and calls go through again once the others are answered.
    @Test @GTKActor func concurrentUploadsAreBoundedInBytes() async throws {
        let page = try await Self.open {
            $0.limits.maxBinaryBytes = 1 << 20
            $0.limits.maxBinaryBytesInFlight = 2 << 20
        }
        defer { page.close() }
        let bridge = page.page.bridge
        _ = try await page.view.evaluateJavaScript(
            """
            const buffer = new ArrayBuffer(1 << 20);
            window.held = [hybrid.call('bin', 'hold', buffer).catch(() => {}), hybrid.call('bin', 'hold', buffer).catch(() => {})];
            true
            """)
        try await waitUntil(timeout: .seconds(20)) {
            let pending = bridge.pendingCallCount
            let awaited = bridge.awaitedUploadCount
            return pending == 2 && awaited == 0
        }
        let refused: [String] = try await Self.run(
            page,
            """
            const code = (p) => p.then((v) => 'answered ' + v, (e) => e.code);
            return [await code(hybrid.call('bin', 'size', new ArrayBuffer(1 << 20))),
              await code(hybrid.call('bin', 'size', new Uint8Array(10))), await code(hybrid.call('bin', 'make', 10).then((b) => b.byteLength))];
            """)
        #expect(refused == ["denied", "denied", "answered 10"], "bytes to the page are not uploads: \(refused)")
        try page.view.load(EngineRequest(url: try #require(URL(string: "bt://main/index.html?again"))))
        try await page.waitFor("window.hybrid && hybrid.isReady && document.readyState === 'complete' && !window.held")
        let again: String = try await Self.run(
            page, "return String(await hybrid.call('bin', 'size', new ArrayBuffer(1 << 20)));")
        #expect(again == "1048576")
    }

    /// A client page whose Content-Security-Policy does not allow the bridge's scheme cannot fetch bytes: its call
    /// fails with an error that says what to add to the policy, and the bytes it never redeemed, however many calls
    /// made them, stay within `maxHeldBinaryValues` and are freed at `byteRedemptionTimeout`. Its uploads never
    /// arrive either: the call waits for them no longer than `byteRedemptionTimeout`, even with no call timeout
    /// (it used to wait until the page navigated).
    @Test @GTKActor func bytesAPageNeverRedeemsAreBoundedAndFreed() async throws {
        let page = try await Self.open {
            $0.limits.maxHeldBinaryValues = 8
            $0.limits.byteRedemptionTimeout = .seconds(3)
            $0.limits.callTimeout = nil
        }
        defer { page.close() }
        try page.view.load(EngineRequest(url: try #require(URL(string: "bt://main/csp.html"))))
        try await page.waitFor(
            "window.hybrid && hybrid.isReady && document.body && document.body.textContent === 'csp'")
        let outcome: [String] = try await Self.run(
            page,
            """
            const codes = [];
            for (let i = 0; i < 20; i++) {
              try { await hybrid.call('bin', 'make', 0); codes.push('answered'); }
              catch (e) { codes.push(e.code + (e.message.includes('connect-src') ? ' (csp)' : '')); }
            }
            return codes;
            """)
        let redemptions = page.page.bridge.redemptions
        #expect(outcome == Array(repeating: "internal (csp)", count: 8) + Array(repeating: "denied", count: 12))
        #expect(redemptions.count == 8, "bytes nobody fetched are held up to the bound, no further")
        try await waitUntil(timeout: .seconds(30)) { redemptions.count == 0 }
        #expect(redemptions.heldBytes == 0)

        let upload: String = try await Self.run(
            page,
            """
            try { await hybrid.call('bin', 'size', new Uint8Array(10)); return 'answered'; }
            catch (e) { return e.code + (e.message.includes('connect-src') ? ' (csp)' : ''); }
            """)
        #expect(upload == "internal (csp)")
        let bridge = page.page.bridge
        try await waitUntil(timeout: .seconds(30)) {
            let awaited = bridge.awaitedUploadCount
            let pending = bridge.pendingCallCount
            return awaited == 0 && pending == 0
        }
    }
}

/// Serves `<root>/<host>/<path>` for `bt://<host>/<path>`, so the test has two origins on one scheme.
final class HostDirectories: SchemeHandler {
    let root: URL
    init(root: URL) { self.root = root }

    func start(_ task: any SchemeTask) {
        let url = task.request.url
        let file = root.appendingPathComponent(url.host ?? "").appendingPathComponent(url.path)
        guard let data = try? Data(contentsOf: file) else { return task.fail(.notFound(url.path)) }
        task.respond(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: data)
    }

    func stop(_ task: any SchemeTask) {}
}
#endif
