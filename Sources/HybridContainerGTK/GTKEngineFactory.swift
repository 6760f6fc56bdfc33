import Foundation
import HybridContainer
import HybridCore
import HybridGTK

/// Makes WebKitGTK views for containers and pools. ``GTKRuntime/start()`` must have succeeded.
public struct GTKEngineFactory: WebEngineFactory {
    public var configuration: GTKWebView.Configuration

    public init(configuration: GTKWebView.Configuration = GTKWebView.Configuration()) {
        self.configuration = configuration
    }

    public var executor: UnownedSerialExecutor { GTKRuntime.shared.executor.asUnownedSerialExecutor() }

    public func makeEngine() throws(EngineError) -> any WebEngine {
        GTKWebView.makeOnGTKThread(configuration: configuration)
    }

    public func historySnapshot(of engine: any WebEngine) -> Data? {
        (engine as? GTKWebView)?.sessionStateDataOnGTKThread()
    }

    public func restoreHistory(_ snapshot: Data, of engine: any WebEngine) -> Bool {
        (engine as? GTKWebView)?.restoreSessionStateOnGTKThread(snapshot) ?? false
    }

    public func historyLength(of engine: any WebEngine) -> Int? {
        (engine as? GTKWebView)?.backForwardListLengthOnGTKThread()
    }

    public func close(_ engine: any WebEngine) {
        (engine as? GTKWebView)?.closeOnGTKThread()
    }
}
