import Foundation
import HybridKit
import HybridKitTesting
import Testing

/// Records what the policy hands the host. Used on the engine's actor (the fake engine's executor).
final class RecordingPolicyHost: NavigationPolicyHost, @unchecked Sendable {
    var external: [ExternalLink] = []
    var newContainers: [NewWindowRequest] = []
    var downloads: [EngineDownload] = []
    var failures: [SubresourceLoadFailure] = []
    var blocked: [URL] = []
    var dialogs: [ScriptDialog] = []
    /// nil: never answers (the dialog must time out).
    var dialogAnswer: ScriptDialogAnswer??

    func openExternally(_ link: ExternalLink) { external.append(link) }
    func openInNewContainer(_ request: NewWindowRequest) { newContainers.append(request) }
    func didRecognizeDownload(_ download: EngineDownload) { downloads.append(download) }
    func didFailSubresourceLoad(_ failure: SubresourceLoadFailure) { failures.append(failure) }
    func didBlockNavigation(to url: URL, reason: String) { blocked.append(url) }
    func runScriptDialog(_ dialog: ScriptDialog) async -> ScriptDialogAnswer? {
        await EngineActor.run { dialogs.append(dialog) }
        guard let answer = dialogAnswer else {
            try? await Task.sleep(for: .seconds(30))
            return nil
        }
        return answer
    }
}

final class RecordingDialogReply: ScriptDialogReply, @unchecked Sendable {
    var answers: [ScriptDialogAnswer] = []
    func answer(_ answer: ScriptDialogAnswer) {
        EngineActor.assumeIsolated { answers.append(answer) }
    }
}

final class RecordingNext: NavigationDelegate, @unchecked Sendable {
    var actions: [URL] = []
    var finished = 0
    var started = 0
    func didStartNavigation(to url: URL?) { started += 1 }
    func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy {
        actions.append(action.request.url)
        return .allow
    }
    func didFinishNavigation(to url: URL?) { finished += 1 }
}

@EngineActor struct NavigationPolicyControllerTests {
    func action(_ text: String, newWindow: Bool = false, gesture: Bool = true) throws -> NavigationAction {
        NavigationAction(
            request: EngineRequest(url: try #require(URL(string: text))), kind: .linkActivated,
            opensNewWindow: newWindow, isUserGesture: gesture)
    }

    @Test func externalLinksReachTheHostAndAreNotLoaded() throws {
        let engine = FakeEngine()
        let host = RecordingPolicyHost()
        let next = RecordingNext()
        let policy = NavigationPolicyController(engine: engine, host: host)
        policy.next = next
        #expect(policy.decidePolicy(for: try action("tel:10086")) == .cancel)
        #expect(policy.decidePolicy(for: try action("mailto:a@b.example", gesture: false)) == .cancel)
        #expect(policy.decidePolicy(for: try action("https://apps.apple.com/app/id1")) == .cancel)
        #expect(host.external.map(\.kind) == [.phone, .mail, .appStore])
        #expect(host.external.map(\.isUserGesture) == [true, false, true])
        #expect(next.actions.isEmpty)
        #expect(policy.decidePolicy(for: try action("https://shop.example/")) == .allow)
        #expect(next.actions.map(\.absoluteString) == ["https://shop.example/"])
        #expect(policy.decidePolicy(for: try action("file:///etc/hosts")) == .cancel)
        #expect(host.blocked.map(\.absoluteString) == ["file:///etc/hosts"])
    }

    @Test func newWindowsGoWhereTheConfigurationSays() async throws {
        let engine = FakeEngine()
        let host = RecordingPolicyHost()
        let choice = NavigationPolicyConfiguration { request in
            switch request.url.host {
            case "same.example": .sameView
            case "new.example": .newContainer
            case "out.example": .external
            default: .ignore
            }
        }
        let policy = NavigationPolicyController(engine: engine, configuration: choice, host: host)
        for url in [
            "https://same.example/a", "https://new.example/b", "https://out.example/c", "https://drop.example/",
        ] {
            #expect(policy.decidePolicy(for: try action(url, newWindow: true)) == .cancel)
        }
        // A non-web URL in a new window is still an external link, not a window.
        #expect(policy.decidePolicy(for: try action("tel:1", newWindow: true)) == .cancel)
        #expect(host.newContainers.map(\.url.absoluteString) == ["https://new.example/b"])
        #expect(host.newContainers.first?.openerURL?.absoluteString == "https://app.example")
        #expect(host.external.map(\.url.absoluteString) == ["https://out.example/c", "tel:1"])
        #expect(host.external.map(\.kind) == [.web, .phone])
        let loaded = await waitUntil(timeout: .seconds(30)) { !engine.loadedRequests.isEmpty }
        #expect(loaded)
        #expect(engine.loadedRequests.map(\.url.absoluteString) == ["https://same.example/a"])
    }

    @Test func mainFrameDataLoadsAreStoppedWhenTheyStart() throws {
        let engine = FakeEngine()
        let host = RecordingPolicyHost()
        let next = RecordingNext()
        let policy = NavigationPolicyController(engine: engine, host: host)
        policy.next = next
        let data = try #require(URL(string: "data:text/html,x"))
        let unknownFrame = NavigationAction(request: EngineRequest(url: data), isMainFrameKnown: false)
        #expect(policy.decidePolicy(for: unknownFrame) == .allow)
        let knownMain = NavigationAction(request: EngineRequest(url: data), isMainFrame: true)
        #expect(policy.decidePolicy(for: knownMain) == .cancel)
        policy.didStartNavigation(to: data)
        #expect(engine.stops == 1)
        #expect(host.blocked == [data, data])
        policy.didStartNavigation(to: URL(string: "https://shop.example/"))
        #expect(engine.stops == 1)
        #expect(next.started == 1)
    }

    @Test func newWindowPostsAreNotTurnedIntoGets() async throws {
        let engine = FakeEngine()
        let host = RecordingPolicyHost()
        let policy = NavigationPolicyController(engine: engine, host: host)
        let url = try #require(URL(string: "https://shop.example/pay"))
        let post = NavigationAction(
            request: EngineRequest(url: url, method: "POST", body: Data("a=1".utf8)), kind: .formSubmitted,
            opensNewWindow: true)
        #expect(policy.decidePolicy(for: post) == .cancel)
        #expect(host.blocked == [url])
        await settle()
        #expect(engine.loadedRequests.isEmpty)
    }

    @Test func downloadsAreRecognisedAndReported() throws {
        let engine = FakeEngine()
        let host = RecordingPolicyHost()
        let policy = NavigationPolicyController(engine: engine, host: host)
        let url = try #require(URL(string: "https://x.example/r"))
        let attachment = NavigationResponse(
            url: url, statusCode: 200, mimeType: "text/html", isMainFrame: true, canShowMIMEType: true,
            headers: [("Content-Disposition", "attachment; filename=r.html")])
        #expect(policy.decidePolicy(for: attachment) == .download)
        let page = NavigationResponse(
            url: url, statusCode: 200, mimeType: "text/html", isMainFrame: true, canShowMIMEType: true)
        #expect(policy.decidePolicy(for: page) == .allow)
        policy.didRecognizeDownload(EngineDownload(url: url, suggestedFilename: "r.html", mimeType: "text/html"))
        #expect(host.downloads.map(\.suggestedFilename) == ["r.html"])
    }

    @Test func subresourceFailuresAreReportedButCancellationsAreNot() throws {
        let host = RecordingPolicyHost()
        let policy = NavigationPolicyController(engine: FakeEngine(), host: host)
        let url = URL(string: "http://nowhere.invalid/a.png")
        policy.didFailSubresourceLoad(SubresourceLoadFailure(url: url, error: "Could not resolve host"))
        policy.didFailSubresourceLoad(SubresourceLoadFailure(url: url, error: "cancelled", isCancellation: true))
        #expect(host.failures.map(\.error) == ["Could not resolve host"])
    }

    @Test func dialogsGetTheHostsAnswer() async throws {
        let host = RecordingPolicyHost()
        host.dialogAnswer = .some(.text("Ada"))
        let policy = NavigationPolicyController(engine: FakeEngine(), host: host)
        let reply = RecordingDialogReply()
        policy.runScriptDialog(ScriptDialog(kind: .prompt(defaultText: "x"), message: "name?"), reply: reply)
        #expect(await waitUntil(timeout: .seconds(30)) { !reply.answers.isEmpty })
        #expect(reply.answers == [.text("Ada")])
        #expect(host.dialogs.map(\.message) == ["name?"])
    }

    @Test func unansweredDialogsTimeOutToTheDefaults() async throws {
        let host = RecordingPolicyHost()
        let configuration = NavigationPolicyConfiguration(
            dialogDefaults: ScriptDialogDefaults(confirm: true), dialogTimeout: .milliseconds(50))
        let policy = NavigationPolicyController(engine: FakeEngine(), configuration: configuration, host: host)
        let reply = RecordingDialogReply()
        policy.runScriptDialog(ScriptDialog(kind: .confirm, message: "sure?"), reply: reply)
        #expect(await waitUntil(timeout: .seconds(30)) { !reply.answers.isEmpty })
        #expect(reply.answers == [.confirmed(true)])
    }

    @Test func answersOfTheWrongKindAndMissingHostsGiveDefaults() async throws {
        let host = RecordingPolicyHost()
        host.dialogAnswer = .some(.text("not a boolean"))
        let policy = NavigationPolicyController(engine: FakeEngine(), host: host)
        let reply = RecordingDialogReply()
        policy.runScriptDialog(ScriptDialog(kind: .confirm, message: "?"), reply: reply)
        #expect(await waitUntil(timeout: .seconds(30)) { !reply.answers.isEmpty })
        #expect(reply.answers == [.confirmed(false)])

        let alone = NavigationPolicyController(engine: FakeEngine())
        let direct = RecordingDialogReply()
        alone.runScriptDialog(ScriptDialog(kind: .prompt(defaultText: ""), message: "?"), reply: direct)
        #expect(direct.answers == [.text(nil)])
    }
}
