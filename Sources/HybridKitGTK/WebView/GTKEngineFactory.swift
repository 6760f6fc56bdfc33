#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit

/// Makes WebKitGTK views for containers and pools. ``GTKRuntime/start(_:)`` must have succeeded.
public struct GTKEngineFactory: WebEngineFactory {
    public var configuration: GTKWebView.Configuration

    public init(configuration: GTKWebView.Configuration = GTKWebView.Configuration()) {
        self.configuration = configuration
    }

    public func makeEngine() throws(EngineError) -> any WebEngine { makeGTKWebView() }

    /// A new view with its type: give it to `HybridContainer(configuration:engine:)` and put its widget in
    /// your window yourself, with no downcast of `HybridContainer.engine`.
    @GTKActor public func makeGTKWebView() -> GTKWebView { GTKWebView(configuration: configuration) }
}
#endif
