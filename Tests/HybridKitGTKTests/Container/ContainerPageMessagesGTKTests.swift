#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitGTK
import Testing

@testable import HybridKit

/// A page posts a message the host awaits, without a module of its own, in real WebKitGTK; the container's rule
/// decides which origins and frames may post, as a module's access does.
extension ContainerGTKTests {
    @Suite struct PageMessages {
        struct Order: Codable, Equatable {
            let total: Int
            let items: [String]
        }

        @GTKActor static func makeContainer(_ access: BridgeAccess?) throws -> HybridContainer {
            try HybridContainer(
                configuration: ContainerConfiguration(features: [try tourServing()], pageMessages: access),
                factory: GTKEngineFactory())
        }

        /// Runs `expression` (a promise) in the page and returns "ok" or the rejection's code.
        @GTKActor static func settle(_ expression: String, in container: HybridContainer) async throws -> String {
            _ = try await container.evaluate(
                """
                window.__settled = null;
                Promise.resolve().then(() => (\(expression))).then(
                  () => { window.__settled = 'ok'; }, (error) => { window.__settled = String(error && error.code); });
                true
                """, as: Bool.self)
            try await waitUntil(timeout: .seconds(20)) {
                (try? await container.evaluate("window.__settled !== null", as: Bool.self)) == true
            }
            return try await container.evaluate("window.__settled", as: String.self)
        }

        @Test @GTKActor func thePageSMessageReachesTheHostTypedWithItsOriginAndFrame() async throws {
            let container = try Self.makeContainer(.origins("app://demo"))
            defer { container.close() }
            let messages = try container.messages("checkout")
            try await container.loadAndWait(try #require(URL(string: "app://demo/test/blank.html")))
            #expect(
                try await Self.settle("hybrid.post('checkout', {total: 3, items: ['tea', 'cup']})", in: container)
                    == "ok")
            var iterator = messages.makeAsyncIterator()
            let message = try #require(await iterator.next())
            #expect(message.name == "checkout")
            #expect(try message.decode(Order.self) == Order(total: 3, items: ["tea", "cup"]))
            #expect(message.origin == "app://demo")
            #expect(message.isMainFrame)
        }

        @Test @GTKActor func aMessagePostedBeforeTheHostListensIsKeptForIt() async throws {
            let container = try Self.makeContainer(.origins("app://demo"))
            defer { container.close() }
            try await container.loadAndWait(try #require(URL(string: "app://demo/test/blank.html")))
            #expect(try await Self.settle("hybrid.post('done')", in: container) == "ok")
            var iterator = try container.messages("done").makeAsyncIterator()
            let message = try #require(await iterator.next())
            #expect(message.value == .null)
        }

        @Test @GTKActor func anOriginTheRuleDoesNotNameIsRefusedAndNothingArrives() async throws {
            let container = try Self.makeContainer(.origins("app://shop.example"))
            let messages = try container.messages("checkout")
            try await container.loadAndWait(try #require(URL(string: "app://demo/test/blank.html")))
            #expect(try await Self.settle("hybrid.post('checkout', 1)", in: container) == "denied")
            container.close()
            var received: [PageMessage] = []
            for await message in messages { received.append(message) }
            #expect(received.isEmpty, "\(received)")
        }

        @Test @GTKActor func aSubframeIsRefusedUnlessTheRuleAllowsSubframes() async throws {
            for allowsSubframes in [false, true] {
                let container = try Self.makeContainer(.origins("app://demo", allowsSubframes: allowsSubframes))
                defer { container.close() }
                try await container.loadAndWait(try #require(URL(string: "app://demo/test/blank.html")))
                _ = try await container.evaluate(
                    """
                    const frame = document.createElement('iframe');
                    frame.src = 'app://demo/test/blank.html';
                    frame.onload = () => { window.__frameLoaded = true; };
                    document.body.appendChild(frame);
                    true
                    """, as: Bool.self)
                try await waitUntil(timeout: .seconds(20)) {
                    (try? await container.evaluate(
                        "window.__frameLoaded === true && !!document.querySelector('iframe').contentWindow.hybrid",
                        as: Bool.self)) == true
                }
                let outcome = try await Self.settle(
                    "document.querySelector('iframe').contentWindow.hybrid.post('fromFrame', 1)", in: container)
                #expect(outcome == (allowsSubframes ? "ok" : "denied"), "allowsSubframes: \(allowsSubframes)")
                if allowsSubframes {
                    var iterator = try container.messages("fromFrame").makeAsyncIterator()
                    let message = try #require(await iterator.next())
                    #expect(!message.isMainFrame)
                }
            }
        }

        @Test @GTKActor func nextMessageReturnsTheMessageOrSaysWhyNoneCame() async throws {
            let container = try Self.makeContainer(.origins("app://demo"))
            defer { container.close() }
            try await container.loadAndWait(try #require(URL(string: "app://demo/test/blank.html")))
            _ = try await container.evaluate("setTimeout(() => hybrid.post('done', 'yes'), 200); true", as: Bool.self)
            #expect(try await container.nextMessage("done").value == .string("yes"))
            do {
                _ = try await container.nextMessage("never", timeout: .milliseconds(300))
                Issue.record("a message nobody posted arrived")
            } catch {
                #expect(error == .timedOut("never", .milliseconds(300)))
                #expect("\(error)".contains("hybrid.post('never'"))
            }
        }

        /// A page that posts faster than the host reads, or to names nobody reads, holds bounded memory natively: a
        /// value over 64 KB is refused (`bad_arguments`), and what waits for names nobody listens to stops at 1 MB
        /// (later posts are refused with `denied`, so the page knows) until a listener takes it.
        @Test @GTKActor func aFloodOfLargeMessagesNobodyReadsIsBounded() async throws {
            let container = try Self.makeContainer(.origins("app://demo"))
            defer { container.close() }
            try await container.loadAndWait(try #require(URL(string: "app://demo/test/blank.html")))
            #expect(
                try await Self.settle("hybrid.post('big', 'x'.repeat(100 * 1024))", in: container) == "bad_arguments")
            #expect(
                try await Self.settle("hybrid.post('big', { deep: [['y'.repeat(70 * 1024)]] })", in: container)
                    == "bad_arguments")
            _ = try await container.evaluate(
                """
                window.__flood = null;
                (async () => {
                  const outcomes = [];
                  for (let i = 0; i < 40; i++) {
                    outcomes.push(await hybrid.post('flood' + (i % 3), 'z'.repeat(60 * 1024)).then(() => 'ok', (e) => e.code));
                  }
                  window.__flood = outcomes;
                })();
                true
                """, as: Bool.self)
            try await waitUntil(timeout: .seconds(30)) {
                (try? await container.evaluate("window.__flood !== null", as: Bool.self)) == true
            }
            let outcomes = try await container.evaluate("window.__flood", as: [String].self)
            let kept = outcomes.prefix { $0 == "ok" }.count
            #expect(kept > 0 && kept < 40, "\(outcomes)")
            #expect(outcomes.dropFirst(kept).allSatisfy { $0 == "denied" }, "\(outcomes)")
            #expect(container.pendingPageMessageBytes <= PageMessageFanOut.maxPendingBytes)
            #expect(container.pendingPageMessageBytes >= kept * 60 * 1024)
            // A listener takes what waited for its name, which frees room for more.
            var iterator = try container.messages("flood0").makeAsyncIterator()
            let first = try #require(await iterator.next())
            #expect(first.value == .string(String(repeating: "z", count: 60 * 1024)))
            #expect(container.pendingPageMessageBytes < kept * 60 * 1024)
            #expect(try await Self.settle("hybrid.post('flood1', 'small')", in: container) == "ok")
        }

        /// Names reach the host's log and key what waits: one with a control character (a newline could forge a
        /// log line), an empty one and one over 128 bytes are refused with `bad_arguments`; any other text is a name.
        @Test @GTKActor func namesOfHostileShapeAreRefused() async throws {
            let container = try Self.makeContainer(.origins("app://demo"))
            defer { container.close() }
            try await container.loadAndWait(try #require(URL(string: "app://demo/test/blank.html")))
            for name in ["'a\\nforged: log line'", "'tab\\there'", "''", "'x'.repeat(129)", "'\\u0085'"] {
                #expect(
                    try await Self.settle("hybrid.post(\(name), 1)", in: container) == "bad_arguments", "\(name)")
            }
            for name in ["'checkout ✓'", "'__proto__'", "'constructor'", "'x'.repeat(128)"] {
                #expect(try await Self.settle("hybrid.post(\(name), 1)", in: container) == "ok", "\(name)")
            }
            var iterator = try container.messages("__proto__").makeAsyncIterator()
            #expect(try #require(await iterator.next()).value == .number(1))
        }

        @Test @GTKActor func withoutARuleListeningIsAConfigurationError() throws {
            let container = try Self.makeContainer(nil)
            defer { container.close() }
            #expect(throws: PageMessageError.notAccepted("checkout")) { try container.messages("checkout") }
            #expect("\(PageMessageError.notAccepted("checkout"))".contains("ContainerConfiguration.pageMessages"))
        }
    }
}
#endif
