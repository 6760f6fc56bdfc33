import Foundation
import HybridKit
import Synchronization

extension EngineConformance {
    static let firstPage = "<!doctype html><title>first</title><p>first page</p>"

    static let loadCases: [ConformanceCase] = [
        ConformanceCase("load.requestReportsStartCommitFinishURLAndTitle") { rig in
            rig.page("index.html", firstPage)
            try await rig.load("index.html")
            let engine = try rig.engine()
            let target = try rig.url("index.html")
            try rig.expectEqual(engine.url, target, "url")
            try await rig.waitForTitle("first")
            let log = rig.events.log
            let start = log.firstIndex(of: "start \(target.absoluteString)")
            let commit = log.firstIndex(of: "commit \(target.absoluteString)")
            let finish = log.firstIndex(of: "finish \(target.absoluteString)")
            guard let start, let commit, let finish else { throw rig.fail("missing start, commit or finish in \(log)") }
            try rig.expect(start < commit && commit < finish, "events out of order: \(log)")
        },
        ConformanceCase("load.htmlStringResolvesAgainstItsBaseURL") { rig in
            rig.handler.serve(path: "/dir/data.txt", contentType: "text/plain", body: Data("from base".utf8))
            let base = try rig.url("dir/page.html")
            try await rig.loadHTML("<!doctype html><title>inline</title><p>inline</p>", baseURL: base)
            try rig.expectEqual(try await rig.eval("location.href"), "\"\(base.absoluteString)\"", "location.href")
            try await rig.waitForTitle("inline")
            try rig.expectEqual(
                try await rig.settle("fetch('data.txt').then((r) => r.text())"), #"{"v":"from base"}"#,
                "relative fetch from the HTML string")
        },
        ConformanceCase("load.fileWithReadAccessRunsItsSiblings") { rig in
            let directory = try rig.temporaryDirectory()
            let index = directory.appendingPathComponent("index.html")
            try Data("<!doctype html><title>file</title><script src=\"sibling.js\"></script>".utf8).write(to: index)
            try Data("window.sibling = 'ran';".utf8).write(to: directory.appendingPathComponent("sibling.js"))
            let before = rig.events.finishCount
            try rig.engine().loadFile(index, allowingReadAccessTo: directory)
            try await rig.waitUntil("the file to finish loading") { rig.events.finishCount > before }
            let engine = try rig.engine()
            try rig.expectEqual(engine.url?.standardizedFileURL.path, index.standardizedFileURL.path, "url path")
            try rig.expectEqual(engine.url?.isFileURL, true, "url is a file URL")
            try await rig.waitForTitle("file")
            try rig.expectEqual(try await rig.eval("window.sibling"), "\"ran\"", "the sibling script")
        },
        ConformanceCase("load.reloadFetchesTheDocumentAgain") { rig in
            rig.page("index.html", firstPage)
            try await rig.load("index.html")
            _ = try await rig.eval("window.marker = 1")
            let target = try rig.url("index.html")
            try rig.engine().reload()
            try await rig.waitUntil("the reload to finish") { rig.events.finished(at: target) == 2 }
            try rig.expectEqual(rig.handler.requests(to: "/index.html").count, 2, "requests for the document")
            try rig.expectEqual(try await rig.eval("typeof window.marker"), "\"undefined\"", "old document's state")
        },
        ConformanceCase("load.stopLoadingAbandonsAPendingLoad") { rig in
            rig.page("index.html", firstPage)
            rig.page("second.html", "<title>second</title>")
            // Never answered: only stopLoading ends it.
            rig.handler.route("/held.html") { _ in }
            try await rig.load("index.html")
            let held = try rig.url("held.html")
            try rig.engine().load(EngineRequest(url: held))
            try await rig.waitUntil("the engine to ask for held.html") {
                !rig.handler.requests(to: "/held.html").isEmpty
            }
            try rig.engine().stopLoading()
            try await rig.idle()
            try rig.expectEqual(rig.events.finished(at: held), 0, "finishes of the stopped load")
            try rig.expectEqual(try await rig.eval("document.title"), "\"first\"", "the document still shown")
            try await rig.load("second.html")
            try await rig.waitForTitle("second")
        },
    ]

    static let scriptCases: [ConformanceCase] = [
        ConformanceCase("script.resultsAreJSONText") { rig in
            try await rig.loadHTML("<p>x</p>", baseURL: rig.url("index.html"))
            let expected: [(String, String?)] = [
                ("1 + 1", "2"), ("'a\"b'", #""a\"b""#),
                ("({a: [1, 'two', null, true]})", #"{"a":[1,"two",null,true]}"#),
                ("null", "null"), ("undefined", nil), ("[]", "[]"), ("false", "false"),
            ]
            for (script, json) in expected {
                try rig.expectEqual(try await rig.eval(script), json, "result of `\(script)`")
            }
        },
        ConformanceCase("script.errorsAreTypedJavaScriptErrors") { rig in
            try await rig.loadHTML("<p>x</p>", baseURL: rig.url("index.html"))
            for script in ["throw new Error('boom')", "this is not javascript", "undefinedFunction()"] {
                switch await rig.evaluation(script) {
                case .success(let value):
                    throw rig.fail("`\(script)` returned \(value ?? "undefined") instead of throwing")
                case .failure(.javaScript): break
                case .failure(let error): throw rig.fail("`\(script)` threw \(error), not EngineError.javaScript")
                }
            }
            // The page survives an error.
            try rig.expectEqual(try await rig.eval("2 * 21"), "42", "evaluation after errors")
        },
        ConformanceCase("script.evaluationIgnoringResultRuns") { rig in
            try await rig.loadHTML("<p>x</p>", baseURL: rig.url("index.html"))
            try rig.engine().evaluateJavaScriptIgnoringResult("window.answer = 41 + 1; ({cyclic: window})")
            try await rig.waitFor("window.answer === 42")
        },
        ConformanceCase("script.functionCallsTakeArgumentsAsValues") { rig in
            try await rig.loadHTML("<p>x</p>", baseURL: rig.url("index.html"))
            let engine = try rig.engine()
            // Text that would break out of a string literal, or run, if the engine built source from it.
            let hostile = "\"'); window.pwned = 1; ('\\\n\u{2028}</script>{\"__proto__\":{\"x\":1}}"
            let arguments: [String: JavaScriptArgument] = [
                "text": .string(hostile), "number": .number(1.5),
                // (No "__proto__" member: WebKitGTK builds the object with assignments, where such a key is dropped.)
                "object": .object(["plain": .string("kept"), "nested": .object(["n": .number(3)])]),
            ]
            let json = try await engine.callAsyncJavaScript(
                """
                return [text === \(ScriptLiteral.literal(hostile)), typeof window.pwned, number,
                  Object.keys(object).sort(), Object.getPrototypeOf(object) === Object.prototype, object.nested.n,
                  await Promise.resolve('awaited')];
                """, arguments: arguments)
            try rig.expectEqual(
                json, #"[true,"undefined",1.5,["nested","plain"],true,3,"awaited"]"#,
                "a function called with arguments")
            try rig.expectEqual(
                try await engine.callAsyncJavaScript("return undefined", arguments: [:]), nil, "an undefined result")
            let thrown: Result<String?, EngineError>
            do throws(EngineError) {
                thrown = .success(try await engine.callAsyncJavaScript("throw new Error('boom')", arguments: [:]))
            } catch {
                thrown = .failure(error)
            }
            switch thrown {
            case .success(let value): throw rig.fail("a function that throws returned \(value ?? "undefined")")
            case .failure(.javaScript): break
            case .failure(let error):
                throw rig.fail("a function that throws threw \(error), not EngineError.javaScript")
            }
            engine.callAsyncJavaScriptIgnoringResult(
                "window.fromCall = a + b", arguments: ["a": .number(40), "b": .number(2)])
            try await rig.waitFor("window.fromCall === 42")
        },
        ConformanceCase("userScripts.addRemoveAndFrames") { rig in
            rig.page("index.html", "<!doctype html><title>main</title><iframe src='frame.html'></iframe>")
            rig.page("frame.html", "<!doctype html><p>frame</p>")
            let atStart = UserScript(
                source: "window.startRan = (window.startRan || 0) + 1; window.startSawBody = !!document.body;",
                injectionTime: .documentStart, allFrames: true)
            let atEnd = UserScript(
                source: "window.endSawBody = !!document.body;", injectionTime: .documentEnd, allFrames: false)
            let engine = try rig.engine()
            engine.addUserScript(atStart)
            engine.addUserScript(atStart)
            engine.addUserScript(atEnd)
            engine.removeUserScript(atStart)  // the first of two equal scripts: one is left
            try await rig.load("index.html")
            let frame = "document.querySelector('iframe').contentWindow"
            try await rig.waitFor("\(frame).document.readyState === 'complete'")
            try rig.expectEqual(try await rig.eval("window.startRan"), "1", "document-start script runs once")
            try rig.expectEqual(try await rig.eval("window.startSawBody"), "false", "document start is before body")
            try rig.expectEqual(try await rig.eval("window.endSawBody"), "true", "document-end script")
            try rig.expectEqual(try await rig.eval("\(frame).startRan"), "1", "all-frames script in the iframe")
            try rig.expectEqual(
                try await rig.eval("typeof \(frame).endSawBody"), "\"undefined\"",
                "main-frame-only script in the iframe")

            engine.removeUserScript(atStart)
            try await rig.load("index.html")
            try rig.expectEqual(try await rig.eval("typeof window.startRan"), "\"undefined\"", "removed script")
            try rig.expectEqual(try await rig.eval("window.endSawBody"), "true", "the script left")
            engine.removeAllUserScripts()
            try await rig.load("index.html")
            try rig.expectEqual(try await rig.eval("typeof window.endSawBody"), "\"undefined\"", "after removeAll")
        },
    ]

    static let messageCases: [ConformanceCase] = [
        ConformanceCase("messages.bodiesArriveAsStringsOrJSON") { rig in
            let handler = RecordingMessageHandler()
            let engine = try rig.engine()
            engine.addScriptMessageHandler(handler, name: "probe", replies: false)
            rig.page("index.html", firstPage)
            try await rig.load("index.html")
            _ = try await rig.eval(
                """
                window.webkit.messageHandlers.probe.postMessage('hello');
                window.webkit.messageHandlers.probe.postMessage({a: 1, b: [true, null]});
                true
                """)
            try await rig.waitUntil("two messages") { handler.messages.count == 2 }
            let messages = handler.messages
            try rig.expectEqual(messages.map(\.name), ["probe", "probe"], "names")
            try rig.expectEqual(messages[0].body, .string("hello"), "string body")
            guard case .other(let json) = messages[1].body, let json,
                let posted = try? JSONDecoder().decode(PostedObject.self, from: Data(json.utf8)),
                posted == PostedObject(a: 1, b: [true, nil])
            else { throw rig.fail("object body arrived as \(messages[1].body)") }
            try rig.expect(handler.replies.allSatisfy { !$0 }, "a handler without replies got a reply object")

            engine.removeScriptMessageHandler(name: "probe")
            try await rig.load("index.html")
            _ = try? await rig.eval("window.webkit.messageHandlers.probe.postMessage('late'); true")
            try await rig.idle()
            try rig.expectEqual(handler.messages.count, 2, "messages after removeScriptMessageHandler")
        },
        ConformanceCase("messages.repliesSettleThePagePromiseOnce") { rig in
            let engine = try rig.engine()
            guard engine.supportsMessageReplies else { throw rig.missing("supportsMessageReplies") }
            let handler = RecordingMessageHandler { message, reply in
                guard case .string(let text) = message.body, let reply else { return }
                switch text {
                case "double:21": reply.resolve(json: #"{"n":42}"#)
                case "fail": reply.reject(message: "nope")
                default:
                    reply.resolve(json: "1")
                    reply.resolve(json: "2")
                    reply.reject(message: "late")
                }
            }
            engine.addScriptMessageHandler(handler, name: "ask", replies: true)
            rig.page("index.html", firstPage)
            try await rig.load("index.html")
            let post = "window.webkit.messageHandlers.ask.postMessage"
            try rig.expectEqual(try await rig.settle("\(post)('double:21')"), #"{"v":{"n":42}}"#, "resolved reply")
            try rig.expectEqual(try await rig.settle("\(post)('fail')"), #"{"e":"nope"}"#, "rejected reply")
            try rig.expectEqual(try await rig.settle("\(post)('twice')"), #"{"v":1}"#, "first settlement wins")
            try rig.expect(handler.replies.allSatisfy { $0 }, "a handler with replies got no reply object")
        },
    ]
}

/// What `messages.bodiesArriveAsStringsOrJSON` posts as an object.
private struct PostedObject: Decodable, Equatable {
    var a: Int
    var b: [Bool?]
}

/// Records script messages; optionally answers them.
final class RecordingMessageHandler: ScriptMessageHandler {
    private let received = Mutex<[(message: ScriptMessage, hadReply: Bool)]>([])
    private let answer: (@EngineActor @Sendable (ScriptMessage, (any ScriptMessageReply)?) -> Void)?

    init(answer: (@EngineActor @Sendable (ScriptMessage, (any ScriptMessageReply)?) -> Void)? = nil) {
        self.answer = answer
    }

    var messages: [ScriptMessage] { received.withLock { $0.map(\.message) } }
    var replies: [Bool] { received.withLock { $0.map(\.hadReply) } }

    func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
        received.withLock { $0.append((message, reply != nil)) }
        answer?(message, reply)
    }
}

/// A JavaScript string literal of a text, for conformance scripts that compare what arrived with what was sent.
enum ScriptLiteral {
    static func literal(_ text: String) -> String {
        var out = "\""
        for unit in text.utf16 {
            out += String(format: "\\u%04x", unit)
        }
        return out + "\""
    }
}
