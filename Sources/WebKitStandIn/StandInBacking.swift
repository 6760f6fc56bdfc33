#if os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit

/// One stand-in view's engine and the two lanes between it and the main actor.
///
/// The engine runs on the engine thread, which is the stand-in's main thread too: every call still goes through
/// `lane` and every event comes back through `main`, each a turn later, as WebKit's two processes talk by
/// messages. Navigation policy is the one place the engine needs an answer in the same turn (the port asks for a
/// decision synchronously); nothing waits for another thread, so nothing can deadlock.
@EngineActor
final class StandInBacking {
    let lane: EngineLane
    let main = EngineLane()
    weak var view: WKWebView?
    private var engine: (any WebEngine)?
    private var closed = false
    // The engine holds its delegates weakly and its handlers strongly; these hold the backing weakly.
    let navigationRelay = NavigationRelay()
    let uiRelay = UIRelay()
    let messageRelay = MessageRelay()
    private var schemeRelays: [SchemeRelay] = []

    init(backend: WKStandInBackend, settings: WebViewSettings, schemes: [String], store: WKStandInDataStoreID) {
        lane = EngineLane()
        navigationRelay.backing = self
        uiRelay.backing = self
        messageRelay.backing = self
        let relays = schemes.map { SchemeRelay(scheme: $0, backing: self) }
        schemeRelays = relays
        lane.post { [self] in
            do throws(EngineError) {
                let engine = try backend.makeEngineInStore(settings, store)
                engine.navigationDelegate = navigationRelay
                engine.uiDelegate = uiRelay
                for relay in relays { try engine.setSchemeHandler(relay, forScheme: relay.scheme) }
                self.engine = engine
            } catch {
                FileHandle.standardError.write(Data("WebKitStandIn: no engine: \(error)\n".utf8))
            }
        }
    }

    /// Runs `body` with the engine, after every call posted before it.
    func perform(
        _ body: @escaping @EngineActor @Sendable (any WebEngine) -> Void,
        orElse: @escaping @EngineActor @Sendable () -> Void = {}
    ) {
        lane.post { [self] in
            if let engine, !closed { body(engine) } else { orElse() }
        }
    }

    /// Runs `body` with the view on the main actor, after every event posted before it; dropped when the view
    /// is gone.
    func toView(_ body: @escaping @MainActor @Sendable (WKWebView) -> Void) {
        main.post { [self] in if let view { body(view) } }
    }

    /// The engine's state, read on its executor, for the view's synchronous properties.
    func state(withHistory: Bool) -> WKWebView.EngineState {
        guard let engine else { return WKWebView.EngineState() }
        return WKWebView.EngineState(
            url: engine.url, title: engine.title, history: withHistory ? engine.historySnapshot() : nil,
            historyLength: withHistory ? engine.historyLength : nil)
    }

    /// Asks the view for an answer while the engine waits (navigation policy). WebKit's UI process and the engine
    /// share the engine thread here, so the view answers in this turn or not at all: the adapter decides
    /// synchronously. A view that is gone or keeps its decision handler gets `fallback`, said on standard error
    /// (WebKit would wait; a test would hang).
    func ask<Answer: Sendable>(
        fallback: Answer,
        _ body: @MainActor (WKWebView, @escaping @Sendable (Answer) -> Void) -> Void
    ) -> Answer {
        let box = Locked<Answer?>(nil)
        let answer: @Sendable (Answer) -> Void = { value in
            box.withLock { slot in if slot == nil { slot = value } }
        }
        if let view { body(view, answer) }
        guard let given = box.withLock({ $0 }) else {
            FileHandle.standardError.write(
                Data("WebKitStandIn: no policy decision in the same turn; using \(fallback)\n".utf8))
            return fallback
        }
        return given
    }

    /// Re-reads url, title and history on the engine's actor, for the view's synchronous properties.
    func refreshState() {
        perform { [weak self] _ in
            guard let self else { return }
            let state = self.state(withHistory: true)
            self.toView { view in view.update(state) }
        }
    }

    func close() {
        lane.post { [self] in
            closed = true
            engine?.close()
            engine = nil
        }
    }
}

final class NavigationRelay: NavigationDelegate {
    weak var backing: StandInBacking?

    func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy {
        guard let backing else { return .allow }
        return backing.ask(fallback: .allow) { view, answer in view.decide(action, answer: answer) }
    }

    func decidePolicy(for response: NavigationResponse) -> NavigationResponsePolicy {
        guard let backing else { return .allow }
        let fallback: NavigationResponsePolicy = response.canShowMIMEType ? .allow : .download
        return backing.ask(fallback: fallback) { view, answer in view.decide(response, answer: answer) }
    }

    // WebKit's `url` is the provisional URL by `didStartProvisionalNavigation` (the port names it; the engine's
    // own URL may still be the document being left).
    func didStartNavigation(to url: URL?) { report(.started, history: false, url: url) }
    func didCommitNavigation(to url: URL?) { report(.committed, history: true) }
    func didFinishNavigation(to url: URL?) { report(.finished, history: true) }
    func didFailNavigation(to url: URL?, error: String) { report(.failed(error), history: false) }
    func webProcessDidTerminate(reason: WebProcessTerminationReason) { report(.processTerminated, history: false) }

    private func report(_ event: NavigationEvent, history: Bool, url: URL? = nil) {
        guard let backing else { return }
        var state = backing.state(withHistory: history)
        if let url { state.url = url }
        backing.toView { view in view.navigationEvent(event, state: state) }
        // WebKitGTK may report the title after the commit or load event (a document still loading has one
        // too), where WebKit would tell observers of `title`: read the state again after this turn and a few
        // times later.
        switch event {
        case .committed, .finished:
            backing.refreshState()
            for delay in [0.1, 0.5, 2.0] {
                Task { [weak backing] in
                    try? await Task.sleep(for: .seconds(delay))
                    backing?.refreshState()
                }
            }
        default: break
        }
    }
}

final class UIRelay: EngineUIDelegate {
    weak var backing: StandInBacking?

    func runScriptDialog(_ dialog: ScriptDialog, reply: any ScriptDialogReply) {
        guard let backing else { return reply.answer(ScriptDialogDefaults().answer(for: dialog)) }
        let lane = backing.lane
        backing.main.post { [weak backing] in
            guard let view = backing?.view else {
                lane.post { reply.answer(ScriptDialogDefaults().answer(for: dialog)) }
                return
            }
            Task { @MainActor in
                let answer = await view.runDialog(dialog)
                lane.post { reply.answer(answer) }
            }
        }
    }
}

final class MessageRelay: ScriptMessageHandler {
    weak var backing: StandInBacking?

    func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
        backing?.toView { view in
            view.configuration.userContentController.deliver(message, reply: reply, to: view)
        }
    }
}

final class SchemeRelay: SchemeHandler {
    let scheme: String
    weak var backing: StandInBacking?

    init(scheme: String, backing: StandInBacking) {
        self.scheme = scheme
        self.backing = backing
    }

    func start(_ task: any SchemeTask) {
        let scheme = scheme
        backing?.toView { view in view.startSchemeTask(task, scheme: scheme) }
    }

    func stop(_ task: any SchemeTask) {
        let scheme = scheme
        backing?.toView { view in view.stopSchemeTask(task, scheme: scheme) }
    }
}
#endif
