import Foundation
import HybridKit

/// What the engine conformance suite needs from the adapter under test: engines, and a loopback HTTP origin.
///
/// Kept small and engine-neutral so every adapter (WebKitGTK, WKWebView, a stand-in) can provide it in a few
/// lines. Everything else a case needs it builds from the port itself: it runs on the factory's `executor`.
public protocol EngineConformanceHost: Sendable {
    /// A factory whose engines are created with `settings` (`WebViewSettings` only take effect at creation).
    /// The runtime behind it must already run. Called off the engine's actor.
    func makeFactory(settings: WebViewSettings) throws -> any WebEngineFactory

    /// Serves the files under `directory` over plain HTTP on a loopback address until ``ConformanceHTTPOrigin/stop``
    /// is called: `GET /a/b.html` answers `directory/a/b.html` with a Content-Type from its extension, a missing
    /// file 404. The cases that need a real http(s) origin (the engine's own cookies) use it.
    func serveHTTP(directory: URL) async throws -> ConformanceHTTPOrigin
}

/// A loopback HTTP server a host started for the suite.
public struct ConformanceHTTPOrigin: Sendable {
    /// The origin with a trailing slash, e.g. `http://127.0.0.1:8123/`.
    public var url: URL
    public var stop: @Sendable () async -> Void

    public init(url: URL, stop: @escaping @Sendable () async -> Void) {
        self.url = url
        self.stop = stop
    }
}

/// A behaviour of the port an adapter did not show, naming the case and what was seen.
public struct ConformanceFailure: Error, CustomStringConvertible, Sendable {
    public var caseName: String
    public var message: String
    /// The capability flag the engine reported false (`supportsMessageReplies`, `verifiesMessageFrames`,
    /// `historySnapshot`), when that is why the case could not check its behaviour. Such a case fails rather than
    /// passing unchecked: a host whose engine truly lacks the capability declares the case a known issue.
    public var missingCapability: String?

    public init(caseName: String = "", message: String, missingCapability: String? = nil) {
        self.caseName = caseName
        self.message = message
        self.missingCapability = missingCapability
    }

    public var description: String { caseName.isEmpty ? message : "\(caseName): \(message)" }
}

/// One behaviour the port promises, checked against real engines.
public struct ConformanceCase: Sendable, CustomStringConvertible {
    /// `area.behaviour`, e.g. `scheme.respondTwiceKeepsTheFirst`.
    public let name: String
    /// Settings the case's engines are created with.
    public let settings: WebViewSettings
    let body: @EngineActor @Sendable (ConformanceRig) async throws -> Void

    init(
        _ name: String, settings: WebViewSettings = WebViewSettings(),
        _ body: @escaping @EngineActor @Sendable (ConformanceRig) async throws -> Void
    ) {
        self.name = name
        self.settings = settings
        self.body = body
    }

    public var description: String { name }

    /// Runs the case against `host`'s engines; throws ``ConformanceFailure`` (its `caseName` set) when the
    /// engine did not behave as the port promises, or when the rig itself could not be set up.
    public func run(on host: any EngineConformanceHost) async throws(ConformanceFailure) {
        do {
            let factory = try host.makeFactory(settings: settings)
            let rig = ConformanceRig(factory: factory, host: host)
            do {
                try await rig.perform(body)
            } catch {
                await rig.tearDown()
                throw error
            }
            await rig.tearDown()
        } catch let failure as ConformanceFailure {
            throw ConformanceFailure(
                caseName: name, message: failure.message, missingCapability: failure.missingCapability)
        } catch {
            throw ConformanceFailure(caseName: name, message: "threw \(error)")
        }
    }
}

/// The engine conformance suite: every behaviour of the port (Sources/HybridKit/Engine), written once against
/// `WebEngineFactory` and run against each adapter.
///
/// From Swift Testing:
/// ```swift
/// @Test(arguments: EngineConformance.cases)
/// func conforms(_ check: ConformanceCase) async throws { try await check.run(on: MyHost()) }
/// ```
/// Cases must run one at a time: they share the engine's thread and measure time on it.
public enum EngineConformance {
    public static let cases: [ConformanceCase] =
        loadCases + scriptCases + messageCases + schemeCases + bodyCases + frameCases + cookieCases
        + navigationCases + uiCases + dataCases + lifecycleCases

    /// The case named `name`.
    public static func named(_ name: String) -> ConformanceCase? { cases.first { $0.name == name } }
}
