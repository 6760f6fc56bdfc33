import Foundation
import HybridKit
import Synchronization

extension EngineConformance {
    /// Fetches `path` from the page and settles to `[status, statusText, header, text]`, or the error's name.
    static func fetchSummary(_ path: String, header: String = "X-Conformance", options: String = "{}") -> String {
        """
        fetch('\(path)', \(options)).then(
          async (r) => [r.status, r.statusText, r.headers.get('\(header)'), await r.text()],
          (e) => 'failed: ' + e.name)
        """
    }

    /// Scheme tasks. The port promises the order (respond, send, finish; or fail), that calls after the end are
    /// ignored, that `stop(_:)` comes when the engine no longer wants a response (navigation away, close), and
    /// that reserved schemes are refused. It says nothing of a second `respond`, of data sent before `respond`, or
    /// of `finish` without `respond`: those cases pin what the WebKitGTK adapter does (the first head wins, early
    /// bytes are dropped, the page never gets a successful response), the one reading that neither crashes nor
    /// mixes two heads. An adapter over WKURLSchemeTask, which raises on each of these, must guard them too.
    static let schemeCases: [ConformanceCase] = [
        ConformanceCase("scheme.reservedSchemesAreRefused") { rig in
            let engine = try rig.engine()
            for scheme in ["http", "https", "file"] {
                let outcome = Result { () throws(EngineError) in
                    try engine.setSchemeHandler(ConformanceSchemeHandler(), forScheme: scheme)
                }
                guard case .failure(let error) = outcome else {
                    throw rig.fail("setSchemeHandler accepted '\(scheme)'")
                }
                try rig.expectEqual(error, .schemeNotAllowed(scheme), "error for '\(scheme)'")
            }
        },
        ConformanceCase("scheme.statusHeadersReasonAndStreamedBody") { rig in
            rig.page("index.html", firstPage)
            let later = rig.later
            rig.handler.route("/stream") { task in
                task.respond(
                    SchemeResponse(
                        statusCode: 201, headers: ["Content-Type": "text/plain", "X-Conformance": "yes"],
                        reasonPhrase: "Made Here"))
                // Chunks over several turns of the engine's loop, the last one large.
                let chunks = ["alpha-", "beta-", String(repeating: "g", count: 200_000)]
                for (index, chunk) in chunks.enumerated() {
                    later(.milliseconds(20 * (index + 1))) { task.send(Data(chunk.utf8)) }
                }
                later(.milliseconds(100)) { task.finish() }
            }
            rig.handler.serve(
                path: "/teapot", contentType: "text/plain", body: Data("short and stout".utf8), status: 404)
            try await rig.load("index.html")
            let stream = try await rig.settle(
                "fetch('/stream').then(async (r) => [r.status, r.statusText, r.headers.get('X-Conformance'), "
                    + "(await r.text()).replace(/g+$/, (g) => 'g*' + g.length)])")
            try rig.expectEqual(stream, #"{"v":[201,"Made Here","yes","alpha-beta-g*200000"]}"#, "streamed response")
            try rig.expectEqual(
                try await rig.settle(fetchSummary("/teapot")), #"{"v":[404,"Not Found",null,"short and stout"]}"#,
                "status without a reason phrase")
            try rig.expectEqual(
                try await rig.settle(fetchSummary("/missing")), #"{"v":"failed: TypeError"}"#, "a failed task")
        },
        ConformanceCase("scheme.respondTwiceKeepsTheFirstHead") { rig in
            rig.page("index.html", firstPage)
            rig.handler.route("/twice") { task in
                task.respond(SchemeResponse(statusCode: 200, headers: ["X-Conformance": "first"]))
                task.respond(SchemeResponse(statusCode: 500, headers: ["X-Conformance": "second"]))
                task.send(Data("body".utf8))
                task.finish()
            }
            try await rig.load("index.html")
            try rig.expectEqual(
                try await rig.settle(fetchSummary("/twice")), #"{"v":[200,"OK","first","body"]}"#, "response")
        },
        ConformanceCase("scheme.dataBeforeTheResponseIsDropped") { rig in
            rig.page("index.html", firstPage)
            rig.handler.route("/early") { task in
                task.send(Data("early-".utf8))
                task.respond(SchemeResponse(statusCode: 200, headers: ["Content-Type": "text/plain"]))
                task.send(Data("late".utf8))
                task.finish()
            }
            try await rig.load("index.html")
            try rig.expectEqual(try await rig.settle(fetchSummary("/early")), #"{"v":[200,"OK",null,"late"]}"#, "body")
        },
        ConformanceCase("scheme.finishWithoutAResponseNeverSucceeds") { rig in
            rig.page("index.html", firstPage)
            rig.handler.route("/headless") { task in task.finish() }
            try await rig.load("index.html")
            let outcome = try await rig.settle(
                """
                Promise.race([
                  fetch('/headless').then((r) => 'answered ' + r.status, (e) => 'failed: ' + e.name),
                  new Promise((resolve) => setTimeout(() => resolve('pending'), 1500)),
                ])
                """)
            try rig.expect(
                outcome == #"{"v":"pending"}"# || outcome == #"{"v":"failed: TypeError"}"#,
                "a task finished without a response reached the page as \(outcome)")
        },
        ConformanceCase("scheme.callsAfterTheEndAreIgnored") { rig in
            rig.page("index.html", firstPage)
            rig.handler.route("/ended") { task in
                task.respond(SchemeResponse(statusCode: 200, headers: ["Content-Type": "text/plain"]))
                task.send(Data("one".utf8))
                task.finish()
                task.send(Data("two".utf8))
                task.respond(SchemeResponse(statusCode: 500))
                task.fail(.failed("after finish"))
                task.finish()
            }
            rig.handler.route("/failed") { task in
                task.fail(.notFound("on purpose"))
                task.respond(status: 200, body: Data("too late".utf8))
                task.fail(.failed("twice"))
            }
            let later = rig.later
            rig.handler.route("/ended-later") { task in
                task.respond(status: 200, headers: ["Content-Type": "text/plain"], body: Data("done".utf8))
                later(.milliseconds(50)) {
                    task.send(Data("after".utf8))
                    task.finish()
                    task.fail(.failed("after"))
                }
            }
            try await rig.load("index.html")
            try rig.expectEqual(
                try await rig.settle(fetchSummary("/ended")), #"{"v":[200,"OK",null,"one"]}"#, "finished")
            try rig.expectEqual(try await rig.settle(fetchSummary("/failed")), #"{"v":"failed: TypeError"}"#, "failed")
            try rig.expectEqual(
                try await rig.settle(fetchSummary("/ended-later")), #"{"v":[200,"OK",null,"done"]}"#, "ended earlier")
            try await rig.idle(.milliseconds(200))
            try rig.expectEqual(try await rig.eval("document.title"), "\"first\"", "the page after late calls")
        },
        ConformanceCase("scheme.navigatingAwayStopsAStreamingTask") { rig in
            rig.page("second.html", "<title>second</title>")
            let later = rig.later
            let stopped = rig.handler
            // A main document that never ends: a chunk every 50 ms until the engine stops the task.
            rig.handler.route("/endless.html") { task in
                task.respond(SchemeResponse(statusCode: 200, headers: ["Content-Type": "text/html"]))
                task.send(Data("<!doctype html><title>endless</title><p>".utf8))
                // Sends three more chunks once stopped: calls after the stop must be harmless.
                @Sendable func tick(_ count: Int, extra: Int) {
                    later(.milliseconds(50)) {
                        task.send(Data(String(repeating: "x", count: 512).utf8))
                        let past = stopped.stopped.contains("/endless.html") ? extra + 1 : extra
                        if past < 3, count < 600 { tick(count + 1, extra: past) } else { task.finish() }
                    }
                }
                tick(0, extra: 0)
            }
            try rig.engine().load(EngineRequest(url: try rig.url("endless.html")))
            try await rig.waitUntil("the endless document to show") { try rig.engine().title == "endless" }
            try await rig.load("second.html")
            try await rig.waitUntil("stop(_:) for the endless task") {
                rig.handler.stopped.contains("/endless.html")
            }
            try await rig.idle(.milliseconds(300))
            try rig.expectEqual(try await rig.eval("document.title"), "\"second\"", "the new page")
        },
    ]

    static let bodyCases: [ConformanceCase] = [
        ConformanceCase("body.postBodyReachesTheHandler") { rig in
            rig.page("index.html", firstPage)
            rig.handler.route("/echo") { task in
                task.respond(
                    status: 200, headers: ["Content-Type": "text/plain", "X-Conformance": task.request.method],
                    body: task.request.body ?? Data("no body".utf8))
            }
            try await rig.load("index.html")
            let options = "{method: 'POST', body: 'hello body', headers: {'X-Test': '1'}}"
            try rig.expectEqual(
                try await rig.settle(fetchSummary("/echo", options: options)), #"{"v":[200,"OK","POST","hello body"]}"#,
                "echo")
            guard let post = rig.handler.requests(to: "/echo").first else { throw rig.fail("no request reached /echo") }
            try rig.expectEqual(post.body, Data("hello body".utf8), "body")
            try rig.expectEqual(post.header("x-test"), "1", "header, by any case")
            try rig.expectEqual(post.bodyWithheld, false, "bodyWithheld")
            let asked = rig.handler.bodyQuestions.filter { $0.url.path == "/echo" }
            try rig.expect(!asked.isEmpty, "mayReadBody(of:) was not asked before reading a POST body")
            try rig.expect(asked.allSatisfy { $0.body == nil }, "mayReadBody(of:) got the body already read")
        },
        ConformanceCase("body.overTheHandlersLimitFailsUnread") { rig in
            rig.page("index.html", firstPage)
            rig.handler.limitBodies(to: 1_000)
            rig.handler.route("/echo") { task in
                task.respond(status: 200, headers: ["Content-Type": "text/plain"], body: task.request.body ?? Data())
            }
            try await rig.load("index.html")
            // At the limit the body arrives whole; one byte over, the request fails and the handler never sees it.
            try rig.expectEqual(
                try await rig.settle(
                    "fetch('/echo', {method: 'POST', body: 'a'.repeat(1000)}).then((r) => r.text()).then((t) => t.length)"
                ),
                #"{"v":1000}"#, "a body at the limit")
            try rig.expectEqual(
                try await rig.settle(
                    "fetch('/echo', {method: 'POST', body: 'a'.repeat(1001)}).then(() => 'answered', (e) => e.name)"),
                #"{"v":"TypeError"}"#, "a body over the limit")
            try rig.expectEqual(rig.handler.requests(to: "/echo").count, 1, "requests the handler saw")
        },
        ConformanceCase("body.withheldWhenTheHandlerSaysNo") { rig in
            rig.page("index.html", firstPage)
            rig.handler.readBodies { $0.header("X-Withhold") == nil }
            rig.handler.route("/echo") { task in
                let request = task.request
                let seen =
                    "\(request.bodyWithheld) \(request.body.map { String(decoding: $0, as: UTF8.self) } ?? "nil")"
                task.respond(status: 200, headers: ["Content-Type": "text/plain"], body: Data(seen.utf8))
            }
            try await rig.load("index.html")
            try rig.expectEqual(
                try await rig.settle(
                    fetchSummary("/echo", options: "{method: 'POST', body: 'secret', headers: {'X-Withhold': '1'}}")),
                #"{"v":[200,"OK",null,"true nil"]}"#, "withheld body")
            try rig.expectEqual(
                try await rig.settle(fetchSummary("/echo", options: "{method: 'POST', body: 'open'}")),
                #"{"v":[200,"OK",null,"false open"]}"#, "read body")
        },
    ]
}
