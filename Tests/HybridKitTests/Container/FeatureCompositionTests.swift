import Foundation
import HybridKit
import HybridKitTesting
import Testing

// Written only against HybridKit's public API: a host's features stand as the built-in ones do.

/// A host's own service, declared as HybridKit declares its own.
enum BannerTextKey: PageServiceKey { typealias Value = String }

extension PageServiceID {
    static let bannerText = PageServiceID(BannerTextKey.self)
}

/// Provides the banner text, made from a built-in service (the scheme the default request hooks serve).
struct BannerTextFeature: PageFeature {
    var provides: [PageServiceID] { [.bannerText] }
    var needs: [PageServiceID] { [.requestHooks] }
    func build(_ assembly: inout PageAssembly) throws {
        assembly.services[BannerTextKey.self] = "hooks on \(assembly.services.requestHooks?.scheme ?? "none")"
    }
    func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? { nil }
}

/// Needs the banner text: puts it in a script and a bridge module.
struct BannerScriptFeature: PageFeature {
    var needs: [PageServiceID] { [.bannerText] }
    func build(_ assembly: inout PageAssembly) throws {
        let text = assembly.services[BannerTextKey.self] ?? "missing"
        assembly.userScripts.append(UserScript(source: "/* banner: \(text) */"))
    }
    func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? { nil }
}

/// Serves a scheme, as packages or a directory would.
struct SchemeServingFeature: PageFeature {
    let scheme: String
    var provides: [PageServiceID] { [.servedSchemes] }
    func build(_ assembly: inout PageAssembly) throws {
        assembly.services[ServedSchemesKey.self, default: []].insert(scheme)
        assembly.schemeHandlers[scheme] = ContainerDefaultsTests.RecordingHandler()
    }
    func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? { nil }
}

/// Writes a service it did not declare.
struct UndeclaredWriterFeature: PageFeature {
    func build(_ assembly: inout PageAssembly) throws { assembly.services[BannerTextKey.self] = "sneaky" }
    func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? { nil }
}

/// Declares what it provides and needs, and does nothing else: for the container's ordering errors.
struct DeclaringFeature: PageFeature {
    let provides: [PageServiceID]
    let needs: [PageServiceID]
    func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? { nil }
}

enum OtherKey: PageServiceKey { typealias Value = Int }

/// Features declare what they provide and need; the container derives the order, so listing order does not
/// matter, and a host's feature uses built-in services as built-in features do.
@Suite(.serialized) @EngineActor struct FeatureCompositionTests {
    func container(_ features: [any PageFeature]) throws -> (HybridContainer, FakeEngine) {
        let made = ContainerWiringTests.WeakEngines()
        let container = try HybridContainer(
            configuration: ContainerConfiguration(features: features),
            factory: ContainerWiringTests.FakeFactory(made: made))
        return (container, try #require(made.engines.first?.value))
    }

    func bannerScripts(_ engine: FakeEngine) -> [String] {
        engine.userScripts.map(\.source).filter { $0.hasPrefix("/* banner") }
    }

    @Test func aHostFeatureBuildsAfterWhatItNeedsWhateverTheListingOrder() throws {
        let features: [any PageFeature] = [
            BannerScriptFeature(), BannerTextFeature(), SchemeServingFeature(scheme: "app"),
        ]
        for listing in [features, features.reversed(), [features[1], features[0], features[2]]] {
            let (container, engine) = try container(listing)
            defer { container.close() }
            // The default hooks chose the served scheme before the banner read it.
            #expect(bannerScripts(engine) == ["/* banner: hooks on app */"])
        }
    }

    @Test func aServiceNobodyProvidesReadsAsNil() throws {
        let (container, engine) = try container([BannerScriptFeature()])
        defer { container.close() }
        #expect(bannerScripts(engine) == ["/* banner: missing */"])
    }

    @Test func aServiceWrittenWithoutBeingDeclaredFailsTheContainer() throws {
        let error = try #require(throws: ContainerError.self) { try container([UndeclaredWriterFeature()]) }
        guard case .feature(let name, let cause) = error else {
            Issue.record("expected a feature error, got \(error)")
            return
        }
        #expect(name == "UndeclaredWriterFeature")
        #expect(
            cause as? PageFeatureError
                == .undeclaredService(feature: "UndeclaredWriterFeature", service: "BannerTextKey"))
        #expect("\(error)".contains("add it to the feature's `provides`"))
    }

    @Test func twoProvidersOfOneServiceFailTheContainer() throws {
        let error = try #require(throws: ContainerError.self) {
            try container([BannerTextFeature(), DeclaringFeature(provides: [.bannerText], needs: [])])
        }
        guard case .features(.providedTwice(let service, let names)) = error else {
            Issue.record("expected providedTwice, got \(error)")
            return
        }
        #expect(service == "BannerTextKey")
        #expect(names == ["BannerTextFeature", "DeclaringFeature"])
    }

    @Test func servicesThatAllowSeveralProvidersAddUp() throws {
        let (container, engine) = try container([
            SchemeServingFeature(scheme: "one"), SchemeServingFeature(scheme: "two"),
        ])
        defer { container.close() }
        // (The bridge serves a scheme of its own for binary values: not a feature's.)
        let served = Set(engine.schemeHandlers.keys).subtracting([BridgeConfiguration.defaultBytesScheme])
        #expect(served == ["one", "two"])
    }

    @Test func featuresThatNeedEachOtherFailTheContainer() throws {
        let other = PageServiceID(OtherKey.self)
        let error = try #require(throws: ContainerError.self) {
            try container([
                DeclaringFeature(provides: [.bannerText], needs: [other]),
                DeclaringFeature(provides: [other], needs: [.bannerText]),
            ])
        }
        guard case .features(.cycle(let names)) = error else {
            Issue.record("expected a cycle, got \(error)")
            return
        }
        #expect(names == ["DeclaringFeature", "DeclaringFeature"])
    }

    @Test func aFeatureMayNeedWhatItProvides() throws {
        let (container, _) = try container([DeclaringFeature(provides: [.bannerText], needs: [.bannerText])])
        container.close()
    }
}
