#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridTestSupport
import Synchronization
import Testing

/// `hybrid.module(name)` in real WebKitGTK: each property of the proxy is a method of the native module, called as
/// `hybrid.call`, `hybrid.callSync` or `hybrid.stream` would call it, and nothing else. It adds no power (a module this
/// frame may not call refuses it the same way), so what must hold is that it cannot be made to mean anything else:
/// awaiting or printing a proxy calls nothing native (`then`, `toJSON`, `toString` and the other names of
/// Object.prototype are not methods, even where the native module has methods so named), and a page script that
/// pollutes Object.prototype, Function.prototype or replaces `Proxy` neither answers for native nor reshapes a proxy.
@Suite(.serialized) struct BridgeModuleProxyGTKTests {
    struct Item: Codable, Sendable { var sku: String, price: Double }
    struct Summary: Codable, Sendable, Equatable { var count: Int, total: Double }

    /// The names of the native methods that ran, in order.
    static let ran = Mutex<[String]>([])

    static let names = ["then", "toJSON", "toString", "valueOf", "constructor", "hasOwnProperty", "__proto__"]

    static let module = BridgeModule("shop", access: .origins("app://demo")) { module in
        module.method("add") { (item: Item, _) throws -> Summary in
            ran.withLock { $0.append("add") }
            guard item.price >= 0 else { throw BridgeError.badArguments("price must be ≥ 0") }
            return Summary(count: 1, total: item.price)
        }
        module.method("peek", synchronous: true) { (_: NoArguments, _) -> Int in
            ran.withLock { $0.append("peek") }
            return 7
        }
        module.method("slow") { (_: NoArguments, _) async throws -> String in
            try await Task.sleep(for: .seconds(5))
            return "late"
        }
        module.stream("count") { (n: Int, _) -> AsyncStream<Int> in
            ran.withLock { $0.append("count") }
            return AsyncStream { continuation in
                for value in 0..<n { continuation.yield(value) }
                continuation.finish()
            }
        }
        // Reachable with hybrid.call, never through a proxy.
        for name in names {
            module.method(name) { (_: NoArguments, _) -> String in
                ran.withLock { $0.append(name) }
                return name
            }
        }
    }

    /// A module this page's origin may not call.
    static let vault = BridgeModule("vault", access: .origins("https://elsewhere.example")) { module in
        module.method("open") { (_: NoArguments, _) -> String in "opened" }
    }

    func page() async throws -> TestPage {
        Self.ran.withLock { $0 = [] }
        return try await TestPage.ready(modules: [Self.module, Self.vault])
    }

    @Test @GTKActor func aProxyCallsTheModuleAsHybridCallDoes() async throws {
        let page = try await page()
        defer { page.close() }
        struct Outcome: Decodable, Equatable {
            let summary: Summary
            let refused: String
            let refusedByCall: String
            let synchronous: Int
            let asynchronous: Int
            let streamed: [Int]
            let timedOut: String
            let denied: String
            let deniedByCall: String
            let sameProxy: Bool
            let sameMethod: Bool
            let badName: String
        }
        let outcome: Outcome = try await page.settle(
            """
            (async () => {
              const shop = hybrid.module('shop');
              const code = (promise) =>
                promise.then(() => 'resolved', (e) => (e instanceof hybrid.HybridError ? e.code : String(e)));
              const summary = await shop.add({ sku: 'sencha', price: 6.5 });
              const refused = await code(shop.add({ sku: 'sencha', price: -1 }));
              const refusedByCall = await code(hybrid.call('shop', 'add', { sku: 'sencha', price: -1 }));
              const synchronous = shop.peek.sync();
              const asynchronous = await shop.peek();
              const streamed = [];
              for await (const value of shop.count.stream(3)) streamed.push(value);
              const timedOut = await code(shop.slow(null, { timeout: 50 }));
              const denied = await code(hybrid.module('vault').open());
              const deniedByCall = await code(hybrid.call('vault', 'open'));
              let badName = 'accepted';
              try { hybrid.module('not a name'); } catch (e) { badName = e.constructor.name; }
              return { summary, refused, refusedByCall, synchronous, asynchronous, streamed, timedOut, denied,
                deniedByCall, sameProxy: hybrid.module('shop') === shop, sameMethod: shop.add === shop.add, badName };
            })()
            """)
        #expect(
            outcome
                == Outcome(
                    summary: Summary(count: 1, total: 6.5), refused: "bad_arguments", refusedByCall: "bad_arguments",
                    synchronous: 7, asynchronous: 7, streamed: [0, 1, 2], timedOut: "timeout", denied: "denied",
                    deniedByCall: "denied", sameProxy: true, sameMethod: true, badName: "TypeError"),
            "\(outcome)")
        #expect(Self.ran.withLock { $0 } == ["add", "add", "add", "peek", "peek", "count"])
    }

    @Test @GTKActor func awaitingPrintingOrInspectingAProxyCallsNothingNative() async throws {
        let page = try await page()
        defer { page.close() }
        struct Outcome: Decodable {
            let awaitedIsTheProxy: Bool
            let json: String
            let primitive: String
            let missing: [String]
            let keys: [String]
            let prototypeIsNull: Bool
        }
        let names = Self.names.map { "'\($0)'" }.joined(separator: ", ")
        let outcome: Outcome = try await page.settle(
            """
            (async () => {
              const shop = hybrid.module('shop');
              const awaited = await shop;
              const json = JSON.stringify({ shop });
              let primitive = 'converted';
              try { primitive = `${shop}`; } catch (e) { primitive = e.constructor.name; }
              const missing = [\(names), 'toLocaleString', 'isPrototypeOf']
                .filter((name) => shop[name] === undefined);
              for (const symbol of [Symbol.toPrimitive, Symbol.iterator, Symbol.asyncIterator, Symbol.toStringTag]) {
                if (shop[symbol] === undefined) missing.push(String(symbol));
              }
              // Give anything a stray then() started time to reach native.
              await new Promise((resolve) => setTimeout(resolve, 200));
              return { awaitedIsTheProxy: awaited === shop, json, primitive, missing, keys: Object.keys(shop),
                prototypeIsNull: Object.getPrototypeOf(shop) === null };
            })()
            """)
        #expect(outcome.awaitedIsTheProxy)
        #expect(outcome.json == #"{"shop":{}}"#)
        #expect(outcome.primitive == "TypeError")
        #expect(
            outcome.missing
                == Self.names + [
                    "toLocaleString", "isPrototypeOf", "Symbol(Symbol.toPrimitive)", "Symbol(Symbol.iterator)",
                    "Symbol(Symbol.asyncIterator)", "Symbol(Symbol.toStringTag)",
                ])
        #expect(outcome.keys.isEmpty && outcome.prototypeIsNull)
        #expect(Self.ran.withLock { $0 }.isEmpty, "native ran \(Self.ran.withLock { $0 })")

        // The methods exist natively: hybrid.call reaches each of them.
        let answers: [String] = try await page.settle(
            "Promise.all([\(names)].map((name) => hybrid.call('shop', name)))")
        #expect(answers == Self.names)
        #expect(Self.ran.withLock { $0 } == Self.names)
    }

    @Test @GTKActor func aPolluterNeitherAnswersForNativeNorReshapesAProxy() async throws {
        let page = try await page()
        defer { page.close() }
        struct Outcome: Decodable {
            let summary: Summary
            let synchronous: Int
            let streamed: [Int]
            let spoofed: [String]
            let assignment: String
            let definition: String
            let stillNative: Bool
            let has: Bool
            let keys: [String]
            let prototypeIsNull: Bool
        }
        // Every trap name a Proxy handler could inherit, a method name, the descriptor fields defineProperty reads,
        // and the built-ins the proxy uses, all replaced before the first proxy exists.
        let outcome: Outcome = try await page.settle(
            """
            (async () => {
              const spoofed = [];
              const spoof = (name) => function () { spoofed.push(name); return 'spoofed'; };
              for (const name of ['add', 'peek', 'count', 'get', 'has', 'set', 'apply', 'construct', 'ownKeys',
                'getPrototypeOf', 'setPrototypeOf', 'defineProperty', 'deleteProperty', 'getOwnPropertyDescriptor',
                'isExtensible', 'preventExtensions']) {
                Object.defineProperty(Object.prototype, name, { __proto__: null, value: spoof(name), configurable: true,
                  writable: true });
              }
              Object.prototype.writable = true;
              Object.prototype.configurable = true;
              Function.prototype.sync = spoof('Function.prototype.sync');
              Function.prototype.stream = spoof('Function.prototype.stream');
              window.Proxy = function () { spoofed.push('Proxy'); return { add: spoof('Proxy.add') }; };
              Object.create = spoof('Object.create');
              Object.freeze = spoof('Object.freeze');
              Object.defineProperty = spoof('Object.defineProperty');

              const shop = hybrid.module('shop');
              const summary = await shop.add({ sku: 'oolong', price: 9 });
              const synchronous = shop.peek.sync();
              const streamed = [];
              for await (const value of shop.count.stream(2)) streamed.push(value);
              const assignment = Reflect.set(shop, 'add', spoof('assigned add')) ? 'assigned' : 'refused';
              const defined = Reflect.defineProperty(shop, 'add', { __proto__: null, value: 1 });
              const definition = defined ? 'defined' : 'refused';
              const stillNative = shop.add !== Object.prototype.add && !Object.isExtensible(shop.add);
              return { summary, synchronous, streamed, spoofed, assignment, definition, stillNative,
                has: 'add' in shop, keys: Reflect.ownKeys(shop).map(String),
                prototypeIsNull: Reflect.getPrototypeOf(shop) === null };
            })()
            """)
        #expect(outcome.summary.count == 1 && outcome.summary.total == 9)
        #expect(outcome.synchronous == 7)
        #expect(outcome.streamed == [0, 1])
        #expect(outcome.spoofed.isEmpty, "the page's replacements answered: \(outcome.spoofed)")
        #expect(outcome.assignment == "refused")
        #expect(outcome.definition == "refused")
        #expect(outcome.stillNative)
        #expect(!outcome.has && outcome.keys.isEmpty && outcome.prototypeIsNull)
        #expect(Self.ran.withLock { $0 } == ["add", "peek", "count"])
    }

    /// Names of every shape: a name is read once, as `String(name)`, and must then be a module name; a proxy of a module
    /// this page may not call, or of one that does not exist, is refused exactly as `hybrid.call` is (same code, same
    /// message) and the host's log says what to change.
    @Test @GTKActor func oddNamesAndRefusedModulesGoAsHybridCallGoes() async throws {
        let logs = LogCapture.installed()
        logs.reset()
        let page = try await page()
        defer { page.close() }
        struct Outcome: Decodable, Equatable {
            let objectNameIsTheSameProxy: Bool
            let badNames: [String]
            let refusals: [[String]]
        }
        let outcome: Outcome = try await page.settle(
            """
            (async () => {
              let reads = 0;
              const named = { toString() { reads++; return reads === 1 ? 'shop' : 'vault'; } };
              const objectNameIsTheSameProxy = hybrid.module(named) === hybrid.module('shop');
              const badNames = [];
              for (const name of [42, Symbol('shop'), 'a'.repeat(65), '', 'shop.add(1)', null, undefined]) {
                try { hybrid.module(name); badNames.push('accepted'); } catch (e) { badNames.push(e.constructor.name); }
              }
              const outcome = (p) => p.then((v) => ['answered', String(v)], (e) => [e.code, e.message]);
              const refusals = [];
              for (const [module, method] of [['vault', 'open'], ['__proto__', 'x'], ['constructor', 'x'],
                ['shop', 'm'.repeat(65)], ['hasOwnProperty', 'open']]) {
                refusals.push(await outcome(hybrid.module(module)[method]()));
                refusals.push(await outcome(hybrid.call(module, method)));
              }
              return { objectNameIsTheSameProxy, badNames, refusals };
            })()
            """)
        #expect(outcome.objectNameIsTheSameProxy, "the name was read once")
        // null and undefined read as the names 'null' and 'undefined', which are module names (native knows none).
        #expect(outcome.badNames == Array(repeating: "TypeError", count: 5) + ["accepted", "accepted"])
        #expect(outcome.refusals.count == 10)
        for pair in stride(from: 0, to: outcome.refusals.count, by: 2) {
            #expect(outcome.refusals[pair] == outcome.refusals[pair + 1], "proxy vs hybrid.call: \(outcome.refusals)")
        }
        #expect(
            outcome.refusals.map { $0.first ?? "" } == [
                "denied", "denied", "unknown_module", "unknown_module", "unknown_module", "unknown_module",
                "bad_message",
                "bad_message", "unknown_module", "unknown_module",
            ])
        #expect(
            logs.messages("hybrid.bridge").contains {
                $0.hasPrefix("bridge call refused:") && $0.contains("name its origin in the module's access")
            }, "the host hears why the proxy's call was refused: \(logs.messages("hybrid.bridge"))")
        #expect(Self.ran.withLock { $0 }.isEmpty)
    }
}
#endif
