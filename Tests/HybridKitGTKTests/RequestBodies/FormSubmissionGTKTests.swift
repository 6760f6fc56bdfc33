#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitGTK
import HybridTestServers
import Testing

/// POST forms to a hooked page's own origin, against what pages do around the submit event: the hooks take the
/// submission over only when the engine itself would submit (after every submit listener, through `formdata`).
@Suite(.serialized) struct FormSubmissionGTKTests {
    /// `who=zo%C3%AB`, the form's one field urlencoded.
    static let fieldBytes = 12

    /// Loads the body-by-id page, builds a form posting `who=zoë` to `/echo` (plus a submit button), runs `setup`
    /// (with `form` and `button` in scope), then `submit`.
    @GTKActor static func submit(
        _ lab: BodiesLab, setup: String, submit: String, side: BodiesLab.Side = .bodyByID
    ) async throws {
        try await lab.load(lab.pageURL(side))
        _ = try await lab.view.evaluateJavaScript(
            """
            (() => {
              const form = document.createElement('form');
              form.method = 'post'; form.action = '/echo';
              const text = document.createElement('input'); text.name = 'who'; text.value = 'zoë'; form.appendChild(text);
              const button = document.createElement('button'); button.type = 'submit'; form.appendChild(button);
              document.body.appendChild(form);
              \(setup)
              \(submit)
              return true;
            })()
            """)
    }

    /// Waits for the echo page and returns the length of the body the server saw.
    @GTKActor static func echoedLength(_ lab: BodiesLab) async throws -> Int? {
        try await lab.waitFor(
            "document.body && document.body.innerText.includes('\"method\":\"POST\"')", timeout: .seconds(20))
        return Int(try await lab.run("JSON.parse(document.body.innerText).length"))
    }

    /// Submits the form built with `setup` unhooked and by id, and expects the server to see as many bytes both ways.
    @GTKActor static func expectSameLengthAsTheEngine(_ lab: BodiesLab, setup: String) async throws {
        var lengths: [BodiesLab.Side: Int] = [:]
        for side in [BodiesLab.Side.unhooked, .bodyByID] {
            try await Self.submit(lab, setup: setup, submit: "button.click()", side: side)
            lengths[side] = try await Self.echoedLength(lab)
        }
        #expect(lengths[.bodyByID] != nil && lengths[.bodyByID] == lengths[.unhooked], "\(lengths)")
    }

    /// Whether the page is still the one the form was on, a while after it was submitted.
    @GTKActor static func stayed(_ lab: BodiesLab) async throws -> Bool {
        try await Task.sleep(for: .milliseconds(1500))
        return try await lab.run("location.pathname") == #""/bodies/conformance.html""#
    }

    @Test(arguments: ["button.click()", "form.requestSubmit()"])
    @GTKActor func aSubmitListenerThatStopsPropagationKeepsTheBody(submit: String) async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        // The hooks' bubbling listener on window never sees this event; before, the engine posted natively and the
        // body was lost.
        try await Self.submit(
            lab, setup: "form.addEventListener('submit', (e) => e.stopPropagation());", submit: submit)
        #expect(try await Self.echoedLength(lab) == Self.fieldBytes)
    }

    @Test(arguments: ["open", "closed"])
    @GTKActor func aFormInAShadowRootKeepsItsBody(mode: String) async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        // Its submit event never reaches window (it is not composed); before, the engine posted it natively.
        try await Self.submit(
            lab,
            setup: """
                const host = document.createElement('div'); document.body.appendChild(host);
                host.attachShadow({ mode: '\(mode)' }).appendChild(form);
                """,
            submit: "button.click()")
        #expect(try await Self.echoedLength(lab) == Self.fieldBytes)
    }

    @Test(arguments: ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data"])
    @GTKActor func lineBreaksGoAsTheEngineWritesThem(enctype: String) async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        let setup = """
            form.enctype = '\(enctype)';
            const area = document.createElement('textarea'); area.name = 'note\\r'; form.appendChild(area);
            area.value = 'one\\ntwo\\r\\nthree';
            """
        try await Self.expectSameLengthAsTheEngine(lab, setup: setup)
    }

    /// Forms in declarative shadow roots (parsed from the HTML, not made with attachShadow), one nested in the other,
    /// keep their bodies: the echo sees the field, as the engine's own submission would send it.
    @Test(arguments: [
        "document.querySelector('#outer').shadowRoot.querySelector('#go').click()",
        "document.querySelector('#outer').shadowRoot.querySelector('#inner').shadowRoot.querySelector('#go').click()",
    ])
    @GTKActor func aFormInADeclarativeShadowRootKeepsItsBody(click: String) async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        for side in [BodiesLab.Side.unhooked, .bodyByID] {
            try await lab.load(
                lab.pageURL(side, path: "bodies/shadow.html"), ready: "document.readyState === 'complete'")
            _ = try await lab.run("(\(click), 1)")
            #expect(try await Self.echoedLength(lab) == Self.fieldBytes, "\(side)")
        }
    }

    @Test @GTKActor func fieldsNamedLikeTheFormsSettingsDoNotRedirectIt() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        // WordPress forms carry a hidden `action`; each such field hides the form's property of that name.
        let setup = """
            for (const name of ['action', 'method', 'target', 'enctype']) {
              const field = document.createElement('input'); field.type = 'hidden'; field.name = name;
              field.value = 'v'; form.appendChild(field);
            }
            """
        try await Self.expectSameLengthAsTheEngine(lab, setup: setup)
    }

    @Test @GTKActor func aSubmitterThatLeftTheFormStillSubmitsIt() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        // A framework swaps the clicked button for a spinner before the event is back up: the engine sends the form
        // without it.
        try await Self.submit(
            lab,
            setup: """
                button.name = 'op'; button.value = 'save';
                form.addEventListener('submit', () => button.replaceWith(document.createElement('span')));
                """,
            submit: "button.click()")
        #expect(try await Self.echoedLength(lab) == Self.fieldBytes)
    }

    @Test @GTKActor func aWindowListenerAfterTheHooksCanStillCancel() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        // Registered after the hooks' own window listener: before, the hooks had started the submission already.
        try await Self.submit(
            lab,
            setup: """
                window.addEventListener('submit', (e) => {
                  window.__seenCancelled = e.defaultPrevented; e.preventDefault(); window.__cancelled = true;
                });
                """,
            submit: "button.click()")
        #expect(try await Self.stayed(lab))
        #expect(try await lab.run("window.__cancelled === true") == "true")
        // A router that checks defaultPrevented first sees the event as the engine gives it, uncancelled.
        #expect(try await lab.run("window.__seenCancelled") == "false")
    }

    @Test @GTKActor func anOnsubmitReturningFalseCancels() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        try await Self.submit(
            lab, setup: "form.setAttribute('onsubmit', 'return false');", submit: "form.requestSubmit()")
        #expect(try await Self.stayed(lab))
    }

    @Test @GTKActor func aFormDataBuiltInAListenerIsNotTakenForTheSubmission() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        // `new FormData(form)` fires formdata too, while the submit event is still being dispatched.
        try await Self.submit(
            lab,
            setup: """
                form.addEventListener('submit', (e) => {
                  window.__entries = [...new FormData(form)].length; e.preventDefault();
                });
                """,
            submit: "button.click()")
        #expect(try await Self.stayed(lab))
        #expect(try await lab.run("window.__entries") == "1")
    }

    @Test @GTKActor func aSyntheticSubmitEventSubmitsNothing() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        // What form libraries do to run a page's submit handlers; the entries read right after are the page's.
        try await Self.submit(
            lab, setup: "",
            submit: """
                form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
                window.__entries = [...new FormData(form)].length;
                """)
        #expect(try await Self.stayed(lab))
        #expect(try await lab.run("window.__entries") == "1")
    }

    /// How many POSTs reached `/beacon?token=` (a 204: the page stays) a while after `submit` ran.
    @GTKActor static func posts(_ lab: BodiesLab, setup: String, submit: String) async throws -> Int {
        let token = UUID().uuidString
        try await Self.submit(
            lab, setup: "form.action = '/beacon?token=\(token)'; " + setup, submit: submit)
        try await Task.sleep(for: .milliseconds(1500))
        return BodyEcho.beaconBodies.withLock { $0[token]?.count ?? 0 }
    }

    @Test @GTKActor func aSubmitListenerThatCallsSubmitSendsOnce() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        // The engine keeps one submission of the form (the later one); the hooks did both.
        let sent = try await Self.posts(
            lab, setup: "form.addEventListener('submit', () => form.submit());", submit: "button.click()")
        #expect(sent == 1)
    }

    @Test @GTKActor func aFormOutsideTheDocumentSubmitsNothing() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        #expect(try await Self.posts(lab, setup: "form.remove();", submit: "form.submit()") == 0)
        #expect(try await Self.posts(lab, setup: "", submit: "form.submit()") == 1, "the control")
    }

    @Test @GTKActor func entriesAFormDataListenerAddsAreSent() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        // As the engine sends them: a page's formdata listener runs after the hooks' capture listener.
        try await Self.submit(
            lab, setup: "form.addEventListener('formdata', (e) => e.formData.append('extra', '1'));",
            submit: "button.click()")
        #expect(try await Self.echoedLength(lab) == Self.fieldBytes + "&extra=1".utf8.count)
    }

    /// What a form's answer page reads and does, against the engine: the query the server got (byte for byte:
    /// `%2B` is not `+`), the URL the page shows (no body tag, fragment kept), and a reload (a GET of that URL).
    @Test @GTKActor func aFormsAnswerHasTheURLAndTheReloadTheEngineGivesIt() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        let read = "location.pathname + location.search + location.hash + ' ' + document.body.innerText"
        var seen: [BodiesLab.Side: [String]] = [:]
        for side in [BodiesLab.Side.unhooked, .bodyByID] {
            try await Self.submit(
                lab, setup: "form.action = '/echo?tag=c%2B%2B&q=a%20b+c&__hybrid_bodyguard=1#part';",
                submit: "button.click()", side: side)
            #expect(try await Self.echoedLength(lab) == Self.fieldBytes, "\(side)")
            let answer = try await lab.run(read)
            _ = try await lab.run("(document.body.dataset.left = '1', location.reload(), 1)")
            try await lab.waitFor(
                "document.body && !document.body.dataset.left && document.body.innerText.includes('method')",
                timeout: .seconds(20))
            seen[side] = [answer, try await lab.run(read)]
        }
        #expect(seen[.bodyByID] == seen[.unhooked])
        #expect(seen[.unhooked]?.first?.contains(#"\"query\":\"tag=c%2B%2B&q=a%20b+c&__hybrid_bodyguard=1\""#) == true)
        #expect(seen[.unhooked]?.last?.contains(#"\"method\":\"GET\""#) == true, "\(seen)")
    }

    /// A page in GBK: the engine writes its forms' names and values in GBK, and a character GBK lacks as `&#N;`;
    /// `accept-charset` naming UTF-8, or GBK by another label, is honoured. The hooks send the same bytes (a
    /// multipart body compared part by part: the boundaries differ). A form asking for a third encoding goes as
    /// UTF-8.
    @Test(arguments: [
        ("application/x-www-form-urlencoded", ""), ("text/plain", ""), ("multipart/form-data", ""),
        ("application/x-www-form-urlencoded", "utf-8"), ("application/x-www-form-urlencoded", "gb2312 bogus"),
        ("text/plain", "windows-1252"),
    ])
    @GTKActor func aFormInALegacyEncodingGoesAsTheEngineWritesIt(enctype: String, acceptCharset: String) async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        var reports: [BodiesLab.Side: BodyEcho.Report] = [:]
        for side in [BodiesLab.Side.unhooked, .bodyByID] {
            let page = lab.pageURL(side, path: "bodies/gbk.html")
            try await lab.load(page, ready: "document.characterSet === 'GBK'")
            _ = try await lab.view.evaluateJavaScript(
                """
                (() => {
                  const form = document.createElement('form');
                  form.method = 'post'; form.action = '/echo'; form.enctype = '\(enctype)';
                  if ('\(acceptCharset)') form.acceptCharset = '\(acceptCharset)';
                  const field = document.createElement('input');
                  field.name = '名 a+b'; field.value = 'zoë 中文 😀 %41 &#1; \\n'; form.appendChild(field);
                  document.body.appendChild(form);
                  form.requestSubmit();
                  return true;
                })()
                """)
            try await lab.waitFor(
                "document.body && document.body.innerText.includes('\"method\":\"POST\"')", timeout: .seconds(20))
            let text = try await lab.view.evaluateJavaScript("document.body.innerText")
            let json = try JSONDecoder().decode(String.self, from: Data((text ?? "").utf8))
            reports[side] = try JSONDecoder().decode(BodyEcho.Report.self, from: Data(json.utf8))
        }
        let engine = try #require(reports[.unhooked]), hooked = try #require(reports[.bodyByID])
        if acceptCharset == "windows-1252" {
            // Neither UTF-8 nor the page's encoding: the hooks cannot write it, and send UTF-8 (the console says so).
            // (An input's value loses its line break.)
            #expect(hooked.length == "名 a+b=zoë 中文 😀 %41 &#1; \r\n".utf8.count)
            #expect(engine.length != hooked.length)
            return
        }
        #expect(hooked.length == engine.length)
        #expect(hooked.parts == engine.parts)
        if enctype != "multipart/form-data" { #expect(hooked.sha256 == engine.sha256) }
    }

    /// Submits into a frame named `result` (the page stays) and waits for the echo there.
    @GTKActor static func waitForResult(_ lab: BodiesLab) async throws {
        try await lab.waitFor(
            """
            (() => {
              try { return frames.result.document.body.innerText.includes('"length":12'); } catch (e) { return false; }
            })()
            """, timeout: .seconds(20))
    }

    static let resultFrame = """
        const frame = document.createElement('iframe'); frame.name = 'result'; document.body.appendChild(frame);
        form.target = 'result'; window.__form = form; window.__next = form.nextSibling;
        """

    @Test @GTKActor func aFormThatStaysSubmitsAgain() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        try await Self.submit(lab, setup: Self.resultFrame, submit: "button.click()")
        try await Self.waitForResult(lab)
        for round in 2...3 {
            _ = try await lab.run(
                "(frames.result.document.body.innerText = '', document.querySelector('form button').click(), \(round))")
            try await Self.waitForResult(lab)
        }
    }

    @Test @GTKActor func aFormTakenOverAtFormdataGetsItsPlaceBack() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        // The path for a page that keeps the submit event from the hooks: the form leaves its document for a moment
        // (to drop the engine's own submission) and comes back where it was.
        try await Self.submit(
            lab, setup: Self.resultFrame + "form.addEventListener('submit', (e) => e.stopPropagation());",
            submit: "button.click()")
        try await Self.waitForResult(lab)
        #expect(try await lab.run("window.__form.isConnected && window.__form.nextSibling === window.__next") == "true")
    }
}
#endif
