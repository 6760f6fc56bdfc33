import Foundation
import HybridKit
import HybridKitTesting
import Synchronization
import Testing

/// What a container adds when the host lists no request hooks or `document.cookie` for the custom scheme its
/// page is served from, and what it refuses when the host turns them off.
@EngineActor struct ContainerDefaultsTests {
    /// Serves `scheme` with a handler that records what reaches it.
    final class RecordingHandler: SchemeHandler {
        let started = Mutex<[EngineRequest]>([])
        func start(_ task: any SchemeTask) {
            started.withLock { $0.append(task.request) }
            task.respond(SchemeResponse(statusCode: 200, headers: [:]))
            task.finish()
        }
        func stop(_ task: any SchemeTask) {}
    }

    struct Serving: PageFeature {
        let scheme: String
        let handler: RecordingHandler
        var provides: [PageServiceID] { [.servedSchemes] }
        func build(_ assembly: inout PageAssembly) throws {
            assembly.services[ServedSchemesKey.self, default: []].insert(scheme)
            assembly.schemeHandlers[scheme] = handler
        }
        func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? { nil }
    }

    func container(
        _ features: [any PageFeature], interception: FeatureDefault = .automatic,
        cookies: DocumentCookieDefault = .automatic(jar: CookieJar())
    ) throws -> (HybridContainer, FakeEngine) {
        let made = ContainerWiringTests.WeakEngines()
        let container = try HybridContainer(
            configuration: ContainerConfiguration(
                features: features, requestInterception: interception, documentCookies: cookies),
            factory: ContainerWiringTests.FakeFactory(made: made))
        return (container, try #require(made.engines.first?.value))
    }

    func count(_ needle: String, in engine: FakeEngine) -> Int {
        engine.userScripts.filter { $0.source.contains(needle) }.count
    }

    @Test func aServedSchemeGetsRequestHooksAndDocumentCookieByDefault() throws {
        let (container, engine) = try container([Serving(scheme: "app", handler: RecordingHandler())])
        defer { container.close() }
        #expect(count("__hybridRequests", in: engine) == 1)
        #expect(count("hybridCookies", in: engine) == 1)
        #expect(container.bridge.modules.catalog[DocumentCookieBridge.moduleName] != nil)
        // The hooks wrap the scheme: only bodies they vouch for are read.
        let handler = try #require(engine.schemeHandlers["app"])
        let post = EngineRequest(url: try #require(URL(string: "app://shop/api")), method: "POST")
        #expect(!handler.mayReadBody(of: post))
    }

    @Test func whatTheHostListedIsNotAddedTwice() throws {
        let jar = CookieJar()
        let (container, engine) = try container([
            Serving(scheme: "app", handler: RecordingHandler()),
            RequestInterceptionFeature(scheme: "app"),
            DocumentCookieFeature(
                bridge: DocumentCookieBridge(jar: jar, scheme: "app", pageURL: { _ in nil })),
        ])
        defer { container.close() }
        #expect(count("__hybridRequests", in: engine) == 1)
        #expect(count("hybridCookies", in: engine) == 1)
    }

    @Test func withTheHooksOffABodyIsRefusedWithAReasonAndNeverRead() throws {
        let inner = RecordingHandler()
        let (container, engine) = try container(
            [Serving(scheme: "app", handler: inner)], interception: .off, cookies: .off)
        defer { container.close() }
        #expect(count("__hybridRequests", in: engine) == 0)
        #expect(count("hybridCookies", in: engine) == 0)
        let handler = try #require(engine.schemeHandlers["app"])
        let url = try #require(URL(string: "app://shop/upload"))
        #expect(!handler.mayReadBody(of: EngineRequest(url: url, method: "POST")))

        // What the engine hands over when it withheld the body: refused, not passed on without it.
        var withheld = EngineRequest(url: url, method: "POST")
        withheld.bodyWithheld = true
        let refused = RecordingTask(withheld)
        handler.start(refused)
        guard case .forbidden(let reason) = refused.failure else {
            Issue.record("expected a forbidden failure, got \(refused.events)")
            return
        }
        #expect(reason.contains("requestInterception"))
        #expect(inner.started.withLock { $0.isEmpty })

        // Requests without a body go through.
        let get = RecordingTask(EngineRequest(url: url))
        handler.start(get)
        #expect(get.finished)
        #expect(inner.started.withLock { $0.count } == 1)
    }

    @Test func noServedSchemeMeansNothingAdded() throws {
        let (container, engine) = try container([])
        defer { container.close() }
        #expect(count("__hybridRequests", in: engine) == 0)
        #expect(count("hybridCookies", in: engine) == 0)
    }
}

/// A container on an engine that cannot identify frames is refused unless the host allows it.
@EngineActor struct UnverifiedFramesTests {
    @Test func anEngineThatCannotIdentifyFramesIsRefusedWithAdvice() throws {
        let made = ContainerWiringTests.WeakEngines()
        let factory = ContainerWiringTests.FakeFactory(made: made, verifiesFrames: false)
        #expect(throws: ContainerError.self) {
            try HybridContainer(configuration: ContainerConfiguration(), factory: factory)
        }
        do {
            _ = try HybridContainer(configuration: ContainerConfiguration(), factory: factory)
        } catch {
            #expect("\(error)".contains("libHybridWebExtension.so"))
            #expect("\(error)".contains("allowsUnverifiedFrames"))
        }
        // The refused engine is released, not leaked.
        #expect(made.engines.allSatisfy { $0.value == nil || $0.value?.closed == true })

        let allowed = try HybridContainer(
            configuration: ContainerConfiguration(allowsUnverifiedFrames: true), factory: factory)
        allowed.close()
    }
}
