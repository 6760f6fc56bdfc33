#if canImport(WebKit) || os(Linux)
    import Foundation
    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif
    import HybridKit
    #if os(Linux)
        import WebKitStandIn
    #else
        import WebKit
    #endif

    /// Makes WKWebView engines for containers, pools and recovery; every engine runs on the main actor.
    ///
    /// WKWebView takes its scheme handlers and settings only when it is created, so the factory carries both:
    /// ``schemes`` are registered on every new view (the container routes them with `setSchemeHandler` later) and
    /// ``settings`` are applied to its configuration.
    public struct WKEngineFactory: WebEngineFactory {
        /// Custom schemes every engine can serve (the container's package and feature schemes).
        public var schemes: Set<String>
        public var settings: WebViewSettings
        /// A fresh configuration per view (WKWebView copies it; sharing one would share its scheme handlers).
        public var makeConfiguration: @MainActor @Sendable () -> WKWebViewConfiguration

        public init(
            schemes: Set<String> = ["app"], settings: WebViewSettings = WebViewSettings(),
            makeConfiguration: @escaping @MainActor @Sendable () -> WKWebViewConfiguration = {
                WKWebViewConfiguration()
            }
        ) {
            self.schemes = schemes
            self.settings = settings
            self.makeConfiguration = makeConfiguration
        }

        public var executor: UnownedSerialExecutor { MainActor.sharedUnownedExecutor }

        /// Called on the main actor (the factory's executor), as the port requires.
        public func makeEngine() throws(EngineError) -> any WebEngine {
            let schemes = schemes
            let settings = settings
            let makeConfiguration = makeConfiguration
            let result = MainActor.assumeIsolated { () -> Result<WKEngine, EngineError> in
                do throws(EngineError) {
                    return .success(
                        try WKEngine(configuration: makeConfiguration(), schemes: schemes, settings: settings))
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }
    }
#endif
