#if os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit

// WebKitStandIn: Apple's WebKit API surface that HybridKitWK uses, for Linux only, so the WKWebView adapter is
// compiled and run here. Declarations follow Apple's Swift interface (actor isolation, sendability,
// availability); behaviour comes from a real engine behind the port (`WKStandIn.backend`, WebKitGTK in the
// tests). WebKit's run-time rules (Objective-C exceptions, main-thread assertions) end the process here too,
// with WebKit's messages, so a call the real WebKit would refuse cannot pass unnoticed.

/// Where the stand-in's web views get their engine.
public struct WKStandInBackend: Sendable {
    /// Makes one engine, on the engine's actor, with the settings the WKWebViewConfiguration asked for and the
    /// website data store the view uses. Engines of one store must share its website data (cookies above all)
    /// and engines of different stores must not, as WebKit's network sessions do.
    public let makeEngineInStore:
        @EngineActor @Sendable (WebViewSettings, WKStandInDataStoreID) throws(EngineError) -> any WebEngine

    public init(
        makeEngineInStore:
            @escaping @EngineActor @Sendable (WebViewSettings, WKStandInDataStoreID) throws(EngineError) ->
            any WebEngine
    ) {
        self.makeEngineInStore = makeEngineInStore
    }

    /// A backend with one store for every view (WebKitGTK's one web context): `nonPersistent()` and identified
    /// stores are not separated from `default()` with it.
    public init(makeEngine: @escaping @EngineActor @Sendable (WebViewSettings) throws(EngineError) -> any WebEngine) {
        self.init(makeEngineInStore: { settings, _ throws(EngineError) in try makeEngine(settings) })
    }
}

extension WKStandInBackend {
    /// Backs the stand-in with any port factory (`GTKEngineFactory()` on this machine). The factory makes every
    /// engine with its own configuration: a WKWebViewConfiguration's settings are not passed on (use
    /// ``init(makeEngine:)`` with a settings-aware closure for that).
    public init(factory: any WebEngineFactory) {
        self.init(makeEngine: { _ throws(EngineError) in try factory.makeEngine() })
    }
}

public enum WKStandIn {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed: WKStandInBackend?

    /// The engine behind web views created from now on; nil makes views that load nothing and answer every
    /// script with an error (enough for tests of declarations and rules).
    public static var backend: WKStandInBackend? {
        get { lock.withLock { installed } }
        set { lock.withLock { installed = newValue } }
    }
}

/// What WebKit does on an Objective-C exception in a Swift app: the process ends with its reason.
func raiseWebKitException(_ reason: String) -> Never {
    fatalError(
        "*** Terminating app due to uncaught exception 'NSInternalInconsistencyException', reason: '\(reason)'")
}

/// WebKit's rule for a completion handler it hands the app (a navigation's decision, a message's reply): called
/// exactly once. A second call raises, and so does a handler freed without a call (WebKit checks when it frees the
/// block). The handler the stand-in passes holds one of these and reports each call to it.
final class CompletionCheck: Sendable {
    private let selector: String
    private let calls = Locked(0)

    init(_ selector: String) { self.selector = selector }

    func called() {
        let count = calls.withLock { calls in
            calls += 1
            return calls
        }
        if count > 1 { raiseWebKitException("Completion handler passed to \(selector) was called more than once") }
    }

    deinit {
        if calls.withLock({ $0 }) == 0 {
            raiseWebKitException("Completion handler passed to \(selector) was not called")
        }
    }
}

/// WebKit asserts the main thread in its UI-process API; Swift's isolation checking covers only code that
/// went through the type checker, so the stand-in checks at run time too. Its main thread is the engine thread
/// (see `MainActor` below).
func requireMainThread(_ api: String) {
    guard EngineThread.shared.isCurrent else {
        fatalError("\(api) must be called on the main thread (WebKit's UI-process API)")
    }
}

/// WebKit's main actor, here: the engine's actor.
///
/// On Apple platforms WKWebView and the core's engine actor are both the main actor. On Linux no engine runs on
/// the main thread, and the core's engine actor is a thread of its own (``EngineActor``), which the engine behind
/// the stand-in (WebKitGTK) runs on. This name shadows Swift's `MainActor` in the stand-in and in code that
/// imports it (HybridKitWK on Linux, its tests), so the adapter's `@MainActor` source is the source an Apple build
/// compiles, and its isolation is checked against the same actor the core is isolated to.
public typealias MainActor = EngineActor

/// WebKit's main queue, here: what the adapter reaches through `DispatchQueue.main` on Apple platforms. Bodies
/// run on the stand-in's main actor (the engine thread) in the order they were queued.
public enum StandInMainQueue {
    private static let lane = EngineLane()

    public static func async(_ body: @escaping @MainActor @Sendable () -> Void) { lane.post(body) }
}

/// Runs closures one after another, in the order they were posted, on the engine's actor — never inline, as
/// WebKit's two processes hear each other a message later. Task enqueue order is not a FIFO guarantee, so each
/// lane keeps its own queue.
final class EngineLane: @unchecked Sendable {
    // `jobs` and `scheduled` under `lock`.
    private let lock = NSLock()
    private var jobs: [@EngineActor @Sendable () -> Void] = []
    private var scheduled = false

    func post(_ job: @escaping @EngineActor @Sendable () -> Void) {
        let start = lock.withLock {
            jobs.append(job)
            defer { scheduled = true }
            return !scheduled
        }
        guard start else { return }
        Task { @EngineActor in self.drain() }
    }

    @EngineActor private func drain() {
        while true {
            let batch: [@EngineActor @Sendable () -> Void] = lock.withLock {
                let batch = jobs
                jobs = []
                if batch.isEmpty { scheduled = false }
                return batch
            }
            if batch.isEmpty { return }
            for job in batch { job() }
        }
    }
}

/// A value guarded by a lock, for the few places another thread meets the engine's.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}

/// JSON text ⇄ the Foundation objects WebKit hands over (NSString, NSNumber, NSArray, NSDictionary, NSNull).
enum StandInJSON {
    static func object(_ json: String?) -> Any? {
        guard let json else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
    }

    static func text(_ value: Any?) -> String? {
        guard let value else { return nil }
        if value is NSNull { return "null" }
        guard JSONSerialization.isValidJSONObject([value]),
            let data = try? JSONSerialization.data(withJSONObject: value, options: .fragmentsAllowed)
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
#endif
