#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridTestSupport
import Testing

@testable import HybridKitGTK

/// The navigation policy in real WebKitGTK: links, new windows, dialogs and downloads.
@Suite(.serialized) struct NavigationPolicyGTKTests {
    static let links = """
        <!doctype html><title>links</title>
        <a id="tel" href="tel:10086">call</a>
        <a id="mail" href="mailto:help@example.com?subject=hi">mail</a>
        <a id="store" href="itms-apps://itunes.apple.com/app/id414478124">store</a>
        <a id="storeweb" href="https://apps.apple.com/cn/app/id414478124">store web</a>
        <a id="intent" href="intent://scan/#Intent;scheme=zxing;end">intent</a>
        <a id="blank" href="/next.html" target="_blank">blank</a>
        <script>window.stays = 'yes';</script>
        """

    @Test @GTKActor func externalSchemesAndNewWindowsReachTheHostAndThePageStays() async throws {
        // As the Telemetry article (Sources/HybridKit/HybridKit.docc/Telemetry.md) says: the decisions are counted
        // and logged under hybrid.navigation.
        let metrics = MetricsSummary.installed()
        let logs = LogCapture.installed()
        let external = metrics.total(HybridMetrics.navigationPolicy, where: [("outcome", "external")])
        let newWindows = metrics.total(HybridMetrics.navigationPolicy, where: [("outcome", "new_window")])
        let rig = try await PolicyTestRig(
            configuration: NavigationPolicyConfiguration(
                newWindow: NavigationPolicyConfiguration.always(.newContainer)),
            settings: WebViewSettings(javaScriptCanOpenWindowsAutomatically: true),
            files: ["next.html": "<title>next</title>"])
        defer { rig.close() }
        try await rig.show(Self.links)
        let page = try #require(rig.view.url)
        for id in ["tel", "mail", "store", "storeweb", "intent"] {
            _ = try await rig.evaluate("document.getElementById('\(id)').click()")
        }
        try await waitUntil(timeout: .seconds(10)) { rig.host.external.count == 5 }
        #expect(
            rig.host.external.map(\.url.absoluteString) == [
                "tel:10086", "mailto:help@example.com?subject=hi", "itms-apps://itunes.apple.com/app/id414478124",
                "https://apps.apple.com/cn/app/id414478124", "intent://scan/#Intent;scheme=zxing;end",
            ])
        #expect(rig.host.external.map(\.kind) == [.phone, .mail, .appStore, .appStore, .intent])

        _ = try await rig.evaluate("document.getElementById('blank').click()")
        #expect(
            try await rig.evaluate("window.opened = window.open('/next.html?from=open'); window.opened === null")
                == "true")
        try await waitUntil(timeout: .seconds(10)) { rig.host.newContainers.count == 2 }
        #expect(
            Set(rig.host.newContainers.map(\.url.absoluteString))
                == [try rig.url("/next.html").absoluteString, try rig.url("/next.html?from=open").absoluteString])
        #expect(rig.host.newContainers.allSatisfy { $0.openerURL == page })
        #expect(metrics.total(HybridMetrics.navigationPolicy, where: [("outcome", "external")]) - external >= 5)
        #expect(metrics.total(HybridMetrics.navigationPolicy, where: [("outcome", "new_window")]) - newWindows >= 2)
        #expect(logs.labels().contains("hybrid.navigation"))

        // Nothing was loaded: the same document is still there, still running.
        try await Task.sleep(for: .milliseconds(300))
        #expect(rig.view.url == page)
        #expect(try await rig.evaluate("window.stays") == "\"yes\"")
        #expect(rig.view.title == "links")
    }

    @Test @GTKActor func sameViewChoiceLoadsTheNewWindowURLHere() async throws {
        let rig = try await PolicyTestRig(
            settings: WebViewSettings(javaScriptCanOpenWindowsAutomatically: true),
            files: ["next.html": "<title>next</title>", "other.html": "<title>other</title>"])
        defer { rig.close() }
        try await rig.show(Self.links)
        _ = try await rig.evaluate("document.getElementById('blank').click()")
        try await waitUntil(timeout: .seconds(10)) { rig.view.title == "next" }
        try await rig.show(Self.links)
        #expect(try await rig.evaluate("window.open('/other.html') === null") == "true")
        try await waitUntil(timeout: .seconds(10)) { rig.view.title == "other" }
        #expect(rig.view.url == (try rig.url("/other.html")))
        #expect(rig.host.newContainers.isEmpty && rig.host.external.isEmpty)
    }

    @Test @GTKActor func dialogsResolveWithTheHostsAnswers() async throws {
        let rig = try await PolicyTestRig(answers: [
            "hello": .dismissed, "sure?": .confirmed(true), "name?": .text("Ada"), "really?": .confirmed(false),
        ])
        defer { rig.close() }
        try await rig.show("<title>dialogs</title>")
        #expect(try await rig.evaluate("alert('hello'); 'after alert'") == "\"after alert\"")
        #expect(try await rig.evaluate("confirm('sure?')") == "true")
        #expect(try await rig.evaluate("confirm('really?')") == "false")
        #expect(try await rig.evaluate("prompt('name?', 'x')") == "\"Ada\"")
        let seen = rig.host.dialogs.withLock { $0 }
        #expect(seen.map(\.message) == ["hello", "sure?", "really?", "name?"])
        #expect(seen.last?.kind == .prompt(defaultText: "x"))
        #expect(seen.first?.pageURL == (try rig.url("/")))
    }

    @Test @GTKActor func unansweredDialogsGetTheDefaultsAfterTheTimeout() async throws {
        let rig = try await PolicyTestRig(
            configuration: NavigationPolicyConfiguration(
                dialogDefaults: ScriptDialogDefaults(confirm: false, promptText: nil), dialogTimeout: .milliseconds(200)
            ))
        defer { rig.close() }
        try await rig.show("<title>dialogs</title>")
        let started = ContinuousClock.now
        #expect(try await rig.evaluate("confirm('nobody answers')") == "false")
        #expect(try await rig.evaluate("prompt('nobody answers either', 'x')") == "null")
        #expect(try await rig.evaluate("alert('silence'); 'went on'") == "\"went on\"")
        #expect(ContinuousClock.now - started >= .milliseconds(600))
        #expect(rig.host.dialogs.withLock { $0.count } == 3)
    }

    @Test @GTKActor func closingTheViewAnswersAnOpenDialog() async throws {
        let rig = try await PolicyTestRig(configuration: NavigationPolicyConfiguration(dialogTimeout: .seconds(600)))
        defer { rig.close() }
        try await rig.show("<title>dialogs</title>")
        let view = rig.view
        let result = Task { @GTKActor in try? await view.evaluateJavaScript("confirm('left open')") }
        try await waitUntil(timeout: .seconds(10)) { rig.host.dialogs.withLock { $0.count } == 1 }
        #expect(view.ui.openDialogs.count == 1)
        view.close()
        // The view answered and released the dialog it held.
        #expect(view.ui.openDialogs.isEmpty)
        // The evaluation ends (the page was answered and the view went away) instead of hanging.
        let ended = Task { @GTKActor in
            _ = await result.value; return true
        }
        try await waitUntil(timeout: .seconds(10)) { await Self.isDone(ended) }
    }

    @GTKActor static func isDone(_ task: Task<Bool, Never>) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await task.value }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(20))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    @Test @GTKActor func downloadsAreRecognisedNotShown() async throws {
        let rig = try await PolicyTestRig(files: ["files/notes.txt": "plain text"])
        defer { rig.close() }
        try await rig.show(
            "<title>start</title><a id=dl href='/files/notes.txt' download='saved-notes.txt'>notes</a>")
        // An HTML attachment the engine could show, and a type it cannot.
        try rig.view.load(EngineRequest(url: try rig.url("/attachment")))
        try await waitUntil(timeout: .seconds(10)) { rig.host.downloads.count == 1 }
        try rig.view.load(EngineRequest(url: try rig.url("/archive.zip")))
        try await waitUntil(timeout: .seconds(10)) { rig.host.downloads.count == 2 }
        _ = try await rig.evaluate("document.getElementById('dl').click()")
        try await waitUntil(timeout: .seconds(10)) { rig.host.downloads.count == 3 }

        let downloads = rig.host.downloads
        #expect(
            downloads[0]
                == EngineDownload(
                    url: try rig.url("/attachment"), suggestedFilename: "report.html", mimeType: "text/html"))
        #expect(downloads[1].url == (try rig.url("/archive.zip")))
        #expect(downloads[1].mimeType == "application/zip")
        #expect(downloads[1].suggestedFilename == "archive.zip")
        #expect(downloads[2].url == (try rig.url("/files/notes.txt")))
        #expect(downloads[2].suggestedFilename == "saved-notes.txt")
        // None of them replaced the page.
        #expect(rig.view.title == "start")
        #expect(try await rig.evaluate("document.title") == "\"start\"")
    }

    @Test @GTKActor func framesMayLoadDataURLsAndBlobDownloadsAreRecognised() async throws {
        let rig = try await PolicyTestRig()
        defer { rig.close() }
        try await rig.show(
            """
            <title>frames</title>
            <script>window.addEventListener('message', (e) => { window.frameSaid = e.data; });</script>
            <iframe id=f src="data:text/html,<script>parent.postMessage('data-frame-ran', '*')</script>"></iframe>
            """)
        try await waitUntil(timeout: .seconds(10)) {
            (try? await rig.evaluate("window.frameSaid")) == "\"data-frame-ran\""
        }
        _ = try await rig.evaluate(
            """
            const a = document.createElement('a');
            a.href = URL.createObjectURL(new Blob(['a,b\\n1,2'], { type: 'text/csv' }));
            a.download = 'export.csv';
            document.body.appendChild(a);
            a.click();
            true
            """)
        try await waitUntil(timeout: .seconds(10)) { rig.host.downloads.count == 1 }
        #expect(rig.host.downloads.first?.url.scheme == "blob")
        #expect(rig.host.downloads.first?.suggestedFilename == "export.csv")
        #expect(rig.view.title == "frames")

        // The page itself may not become a data: document. WebKit refuses page-made top-level data: loads
        // itself; the policy stops any that still start (unit-tested), so either way the page stays.
        _ = try await rig.evaluate("location.href = 'data:text/html,<title>spoof</title>'; true")
        try await Task.sleep(for: .milliseconds(500))
        #expect(rig.view.title == "frames")
        #expect(rig.view.url?.scheme == "http")
        #expect(try await rig.evaluate("window.frameSaid") == "\"data-frame-ran\"")
    }
}
#endif
