#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridDemo
import HybridKit
import HybridKitGTK
import Testing

/// A host learns that its page loaded, failed or came back by awaiting it, in real WebKitGTK: no polling.
extension ContainerGTKTests {
    @Suite struct LoadEvents {
        final class Failing: SchemeHandler {
            func start(_ task: any SchemeTask) { task.fail(.failed("the network is unreachable")) }
            func stop(_ task: any SchemeTask) {}
        }

        /// Serves `unserved` with a handler that fails every request, as a package miss does when the network is down.
        struct FailingScheme: PageFeature {
            var provides: [PageServiceID] { [.servedSchemes] }
            func build(_ assembly: inout PageAssembly) throws {
                assembly.services[ServedSchemesKey.self, default: []].insert("unserved")
                assembly.schemeHandlers["unserved"] = Failing()
            }
            func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? { nil }
        }

        @GTKActor static func makeContainer() throws -> HybridContainer {
            try HybridContainer(
                configuration: ContainerConfiguration(features: [try tourServing()]), factory: GTKEngineFactory())
        }

        @Test @GTKActor func loadAndWaitReturnsWhenThePageFinishedAndEventsArriveInOrder() async throws {
            let container = try Self.makeContainer()
            defer { container.close() }
            let events = container.loadEvents()
            let url = try #require(URL(string: "app://demo/test/blank.html"))
            try await container.loadAndWait(url)
            // The page is there: no polling was needed to know it.
            #expect(try await container.evaluate("document.readyState", as: String.self) == "complete")
            var seen: [PageLoadEvent] = []
            for await event in events {
                seen.append(event)
                if case .finished = event { break }
            }
            #expect(seen == [.started(url), .committed(url), .finished(url)], "\(seen)")
        }

        @Test @GTKActor func aFailedLoadThrowsItsTypedReason() async throws {
            let container = try HybridContainer(
                configuration: ContainerConfiguration(features: [try tourServing(), FailingScheme()]),
                factory: GTKEngineFactory())
            defer { container.close() }
            let url = try #require(URL(string: "unserved://shop.example/"))
            do {
                try await container.loadAndWait(url, timeout: .seconds(20))
                Issue.record("a load its handler failed returned normally")
            } catch let failure as PageLoadFailure {
                #expect(failure.kind == .notServed, "\(failure)")
                #expect(failure.url == url)
                #expect(failure.message.contains("the network is unreachable"), "\(failure)")
            }
        }

        @Test @GTKActor func aSchemeNothingServesIsRefusedBeforeTheViewIsTouched() async throws {
            let container = try Self.makeContainer()
            defer { container.close() }
            let events = container.loadEvents()
            #expect {
                try container.load(try #require(URL(string: "nothing://shop.example/")))
            } throws: { error in
                guard case EngineError.notLoadable(let url, let advice) = error else { return false }
                return url == "nothing://shop.example/" && advice.contains("served: app")
            }
            container.close()
            var seen: [PageLoadEvent] = []
            for await event in events { seen.append(event) }
            #expect(seen.isEmpty, "\(seen)")
        }

        @Test @GTKActor func aTerminatedProcessAndItsRecoveryAreEvents() async throws {
            let container = try HybridContainer(
                configuration: ContainerConfiguration(
                    features: [try tourServing()],
                    recovery: RecoveryPolicy(
                        maxConsecutiveAttempts: 3, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1),
                        stableAfter: .milliseconds(200))),
                factory: GTKEngineFactory())
            defer { container.close() }
            try await container.loadAndWait(try #require(URL(string: "app://demo/test/blank.html")))
            let events = container.loadEvents()
            container.engine.terminateWebProcess()
            var sawTermination = false
            for await event in events {
                if case .webProcessTerminated = event { sawTermination = true }
                if case .recovered = event { break }
            }
            #expect(sawTermination)
        }

        @Test @GTKActor func closingEndsTheSequence() async throws {
            let container = try Self.makeContainer()
            let events = container.loadEvents()
            container.close()
            var count = 0
            for await _ in events { count += 1 }
            #expect(count == 0)
        }
    }
}
#endif
