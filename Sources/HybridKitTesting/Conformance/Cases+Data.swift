import Foundation
import HybridKit

extension EngineConformance {
    /// Clearing website data clears it for the engine's whole context (WebKitGTK keeps one per process): run the
    /// suite where no other test needs its cookies or storage at the same time (the tests run serially).
    static let dataCases: [ConformanceCase] = [
        ConformanceCase("websiteData.clearRemovesCookiesAndStorage") { rig in
            let origin = try await rig.httpOrigin(["page.html": "<!doctype html><title>storage</title>"])
            guard let host = origin.host, let page = URL(string: "page.html", relativeTo: origin)?.absoluteURL else {
                throw rig.fail("bad origin \(origin)")
            }
            let engine = try rig.engine()
            let store = engine.cookieStore
            let cookie = EngineCookie(name: "kept", value: "1", domain: host)
            try await store.setCookie(cookie)
            try engine.load(EngineRequest(url: page))
            try await rig.waitUntil("the http page") { rig.events.finished(at: page) == 1 }
            _ = try await rig.eval("localStorage.setItem('kept', 'yes'); true")

            // An engine that cannot honour modifiedSince for cookies must say so and clear nothing.
            var honoursDate = true
            do throws(EngineError) {
                try await engine.clearWebsiteData(.cookies, modifiedSince: Date(timeIntervalSinceNow: -60))
            } catch {
                guard case .unsupported = error else { throw rig.fail("clearing cookies by date threw \(error)") }
                honoursDate = false
            }
            if !honoursDate {
                try rig.expect(
                    try await store.cookies(for: page).contains { $0.name == "kept" },
                    "a refused clearWebsiteData(.cookies, modifiedSince:) cleared cookies")
            }

            try await engine.clearWebsiteData([.cookies, .localStorage], modifiedSince: nil)
            try rig.expect(
                !(try await store.cookies(for: page).contains { $0.name == "kept" }), "cookies after clearing them")
            engine.reload()
            try await rig.waitUntil("the reloaded page") { rig.events.finished(at: page) == 2 }
            try rig.expectEqual(
                try await rig.eval("localStorage.getItem('kept')"), "null", "localStorage after clearing")
        },
        ConformanceCase("subresources.failuresReachTheUIDelegate") { rig in
            rig.page(
                "index.html",
                "<!doctype html><title>broken</title><img src='/missing.png'><script src='/missing.js'></script>")
            try await rig.load("index.html")
            let missing = try [rig.url("missing.png"), rig.url("missing.js")]
            try await rig.waitUntil("didFailSubresourceLoad for both missing resources") {
                let failed = Set(rig.ui.subresourceFailures.compactMap(\.url))
                return missing.allSatisfy { failed.contains($0) }
            }
            let failures = rig.ui.subresourceFailures.filter { $0.url.map(missing.contains) ?? false }
            try rig.expect(failures.allSatisfy { !$0.isCancellation }, "a failed load reported as a cancellation")
            try rig.expect(
                !rig.ui.subresourceFailures.contains { $0.url == (try? rig.url("index.html")) },
                "the main resource reported as a sub-resource")
        },
        ConformanceCase("navigation.actionKinds") { rig in
            rig.page(
                "form.html",
                """
                <!doctype html><title>form</title>
                <form id="f" action="sent.html" method="get"><input name="q" value="1"></form>
                """)
            rig.page("sent.html", "<title>sent</title>")
            try await rig.load("form.html")
            _ = try await rig.eval("document.getElementById('f').submit(); true")
            try await rig.waitForTitle("sent")
            try rig.engine().reload()
            try await rig.waitUntil("the reload's action") { rig.events.actions.contains { $0.kind == .reload } }
            try await rig.waitForTitle("sent")
            _ = try await rig.eval("history.back(); true")
            try await rig.waitForTitle("form")
            let kinds = rig.events.actions.map { "\($0.request.url.path) \($0.kind)" }
            try rig.expect(
                rig.events.actions.contains { $0.kind == .formSubmitted && $0.request.url.path == "/sent.html" },
                "no formSubmitted action for the form: \(kinds)")
            try rig.expect(
                rig.events.actions.contains { $0.kind == .backForward && $0.request.url.path == "/form.html" },
                "no backForward action for history.back(): \(kinds)")
            try rig.expect(
                rig.events.actions.contains { $0.kind == .reload && $0.request.url.path == "/sent.html" },
                "no reload action: \(kinds)")
        },
    ]
}
