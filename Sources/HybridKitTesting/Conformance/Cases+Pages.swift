import Foundation
import HybridKit
import Synchronization

extension EngineConformance {
    /// Reports who the calling frame is, as the bridge learnt it from the engine.
    static let whoModule = BridgeModule("who", access: .anyPage) { module in
        module.method("ami", synchronous: true) { (_: NoArguments, call) in
            "\(call.origin) \(call.originVerified ? "verified" : "claimed") \(call.isMainFrame ? "main" : "sub")"
        }
    }

    static let frameCases: [ConformanceCase] = [
        // Through the bridge runtime: the port vouches for frames of messages the runtime posts
        // (WebEngine.verifiesMessageFrames), and FrameInfo.securityOrigin is what the bridge reports as `origin`.
        ConformanceCase("frames.messagesCarryTheSecurityOriginTheEngineEnforces") { rig in
            let engine = try rig.engine()
            guard engine.verifiesMessageFrames else { throw rig.missing("verifiesMessageFrames") }
            let page = try HybridPage(engine: engine, modules: [whoModule])
            defer { page.close() }
            page.delegate = rig.events
            let probeTemplate = """
                <script>
                hybrid.ready.then(() => hybrid.call('who', 'ami')).then(
                  (who) => parent.postMessage({probe: NAME, who}, '*'),
                  (e) => parent.postMessage({probe: NAME, who: 'error ' + e.code}, '*'));
                </script>
                """
            func probe(_ name: String) -> String { probeTemplate.replacingOccurrences(of: "NAME", with: "'\(name)'") }
            func attribute(_ html: String) -> String {
                html.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            }
            rig.page("probe-plain.html", probe("plain"))
            rig.page("probe-sandboxed.html", probe("sandboxed"))
            let dataURL =
                "data:text/html," + (probe("data").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            rig.page(
                "frames.html",
                """
                <!doctype html><title>frames</title>
                <script>
                window.probes = {};
                addEventListener('message', (e) => { if (e.data && e.data.probe) window.probes[e.data.probe] = e.data.who; });
                </script>
                <iframe src="probe-plain.html"></iframe>
                <iframe sandbox="allow-scripts" src="probe-sandboxed.html"></iframe>
                <iframe srcdoc="\(attribute(probe("srcdoc")))"></iframe>
                <iframe src="\(attribute(dataURL))"></iframe>
                <iframe id="blank"></iframe>
                """)
            try await rig.load("frames.html")
            // about:blank has no document of its own to run a script: the parent calls through its runtime.
            _ = try await rig.settle(
                """
                new Promise((resolve) => {
                  const frame = document.getElementById('blank').contentWindow;
                  const poll = () => frame.hybrid ? resolve(frame.hybrid.ready.then(() => frame.hybrid.call('who', 'ami'))
                    .then((who) => { window.probes.blank = who; })) : setTimeout(poll, 20);
                  poll();
                })
                """)
            _ = try await rig.settle(
                "hybrid.ready.then(() => hybrid.call('who', 'ami')).then((w) => { window.probes.main = w; })")
            try await rig.waitFor("Object.keys(window.probes).length === 6")
            let probes = try await rig.eval("window.probes") ?? "nil"
            guard let object = try? JSONSerialization.jsonObject(with: Data(probes.utf8)) as? [String: String] else {
                throw rig.fail("probes were \(probes)")
            }
            let expected = [
                "main": "conformance://host verified main",
                "plain": "conformance://host verified sub",
                "sandboxed": "null verified sub",
                "data": "null verified sub",
                "srcdoc": "conformance://host verified sub",
                "blank": "conformance://host verified sub",
            ]
            try rig.expectEqual(object, expected, "frame identities")
        },
        // A synchronous call is a prompt() the engine must name the frame of (ScriptDialog.frame), as it does for
        // posts; HybridPage answers it, and the page's own prompts still reach the UI delegate.
        ConformanceCase("frames.synchronousCallsCarryTheFrameTheEngineNames") { rig in
            let engine = try rig.engine()
            guard engine.verifiesMessageFrames else { throw rig.missing("verifiesMessageFrames") }
            let page = try HybridPage(engine: engine, modules: [whoModule])
            defer { page.close() }
            page.delegate = rig.events
            page.uiDelegate = rig.ui
            rig.ui.answerDialogs { _ in .text("typed") }
            let ask = "let who; try { who = hybrid.callSync('who', 'ami'); } catch (e) { who = 'error ' + e.code; }"
            rig.page(
                "probe-sync.html",
                "<script>\(ask) parent.postMessage({probe: location.hash ? 'sandboxed' : 'plain', who}, '*');</script>")
            rig.page(
                "sync.html",
                """
                <!doctype html><title>sync</title>
                <script>
                window.probes = {};
                addEventListener('message', (e) => { if (e.data && e.data.probe) window.probes[e.data.probe] = e.data.who; });
                { \(ask) window.probes.main = who; }
                </script>
                <iframe src="probe-sync.html"></iframe>
                <iframe sandbox="allow-scripts allow-modals" src="probe-sync.html#s"></iframe>
                """)
            try await rig.load("sync.html")
            try await rig.waitFor("Object.keys(window.probes).length === 3")
            let probes = try await rig.eval("window.probes") ?? "nil"
            guard let object = try? JSONSerialization.jsonObject(with: Data(probes.utf8)) as? [String: String] else {
                throw rig.fail("probes were \(probes)")
            }
            try rig.expectEqual(
                object,
                [
                    "main": "conformance://host verified main", "plain": "conformance://host verified sub",
                    "sandboxed": "null verified sub",
                ], "synchronous callers")
            try rig.expectEqual(try await rig.settle("prompt('own?')"), #"{"v":"typed"}"#, "the page's own prompt")
            try rig.expectEqual(rig.ui.dialogs.map(\.message), ["own?"], "dialogs the UI delegate heard")
        },
    ]

    static let cookieCases: [ConformanceCase] = [
        ConformanceCase("cookies.storeSetsReadsAndDeletes") { rig in
            let store = try rig.engine().cookieStore
            let changes = Mutex(0)
            store.observeChanges { changes.withLock { $0 += 1 } }
            let cookie = EngineCookie(
                name: "session", value: "abc", domain: "cookies.example", path: "/",
                expires: Date(timeIntervalSinceNow: 3600), isSecure: true, isHTTPOnly: true, sameSite: .lax)
            try await store.setCookie(cookie)
            guard let secure = URL(string: "https://cookies.example/account"),
                let plain = URL(string: "http://cookies.example/")
            else { throw rig.fail("bad URLs") }
            let found = try await store.cookies(for: secure)
            try rig.expectEqual(found.count, 1, "cookies for the https URL")
            try rig.expectEqual(found.first?.value, "abc", "value")
            try rig.expectEqual(found.first?.isHTTPOnly, true, "HttpOnly")
            try rig.expectEqual(found.first?.isSecure, true, "Secure")
            try rig.expectEqual(found.first?.sameSite, .lax, "SameSite")
            try rig.expectEqual(try await store.cookies(for: plain).count, 0, "a Secure cookie for an http URL")
            try rig.expect(
                try await store.cookies(for: nil).contains { $0.name == "session" }, "cookies(for: nil) lists all")
            try await store.deleteCookie(cookie)
            try rig.expectEqual(try await store.cookies(for: secure).count, 0, "after delete")
            try await rig.waitUntil("two change notifications") { changes.withLock { $0 } >= 2 }
        },
        ConformanceCase("cookies.flowBetweenTheStoreAndHTTPPages") { rig in
            let origin = try await rig.httpOrigin(["page.html": "<!doctype html><title>http page</title>"])
            guard let host = origin.host, let page = URL(string: "page.html", relativeTo: origin)?.absoluteURL else {
                throw rig.fail("bad origin \(origin)")
            }
            let store = try rig.engine().cookieStore
            let changes = Mutex(0)
            store.observeChanges { changes.withLock { $0 += 1 } }
            // Engines keep cookies per context, not per view, and loopback origins share a host whatever their
            // port: names unique to this run keep other tests' cookies out of the comparison.
            let tag = UUID().uuidString.prefix(8).lowercased()
            let (fromStore, secret, fromPage) = ("fromStore\(tag)", "secret\(tag)", "fromPage\(tag)")
            try await store.setCookie(EngineCookie(name: fromStore, value: "1", domain: host))
            try await store.setCookie(EngineCookie(name: secret, value: "2", domain: host, isHTTPOnly: true))
            let before = rig.events.finished(at: page)
            try rig.engine().load(EngineRequest(url: page))
            try await rig.waitUntil("the http page to finish") { rig.events.finished(at: page) > before }
            let documentCookies = try await rig.settle(
                "Object.fromEntries(document.cookie.split('; ').map((c) => c.split('=')).filter(([n]) => n.endsWith('\(tag)')))"
            )
            try rig.expectEqual(documentCookies, #"{"v":{"\#(fromStore)":"1"}}"#, "document.cookie (without HttpOnly)")
            let seen = changes.withLock { $0 }
            _ = try await rig.eval("document.cookie = '\(fromPage)=3; path=/'; true")
            var cookies: [EngineCookie] = []
            try await rig.waitUntil("the page's cookie in the store") {
                cookies = try await store.cookies(for: page)
                return cookies.contains { $0.name == fromPage && $0.value == "3" }
            }
            try await rig.waitUntil("a change notification for the page's cookie") { changes.withLock { $0 } > seen }
            try rig.expect(cookies.contains { $0.name == secret && $0.isHTTPOnly }, "the HttpOnly cookie: \(cookies)")
        },
    ]
}
