import Foundation
import Testing

@testable import HybridKit

@Suite struct InboundMessageParserTests {
    let parser = InboundMessageParser(limits: BridgeLimits(maxMessageBytes: 1024, maxNestingDepth: 4))

    @Test func readsACall() throws {
        let message = try parser.parse("H1 call 7 0123456789abcdef main https://a.example device info\n{\"x\":[1,2]}")
        #expect(message.kind == .call)
        #expect(message.id == 7)
        #expect(message.frame == .main)
        #expect(message.origin == "https://a.example")
        #expect(message.module == "device")
        #expect(message.method == "info")
        #expect(String(Substring(message.payload)) == "{\"x\":[1,2]}")
    }

    @Test(arguments: [
        ("", "no head line"),
        ("{\"module\":\"x\"}", "no head line"),
        ("H1 call 7 0123456789abcdef main\n{}", "message head"),
        ("H2 call 7 0123456789abcdef main o m n\n{}", "message head"),
        ("H1 shout 7 0123456789abcdef main o m n\n{}", "unknown message kind"),
        ("H1 call x 0123456789abcdef main o m n\n{}", "id"),
        ("H1 call -3 0123456789abcdef main o m n\n{}", "id"),
        ("H1 call 1 NOT-A-TOKEN main o m n\n{}", "token"),
        ("H1 call 1 0123456789abcdef top o m n\n{}", "frame"),
        ("H1 call 1 0123456789abcdef main o 9m n\n{}", "name"),
        ("H1 call 1 0123456789abcdef main o m n<script>\n{}", "name"),
        ("H1 call 1 0123456789abcdef main o m n\n", "empty"),
        ("H1 call 1 0123456789abcdef main o m n\n[[[[[1]]]]]", "deeper than 4"),
        ("H1 call 1 0123456789abcdef main o m n\n[1]]", "unbalanced"),
        ("H1 call 1 0123456789abcdef main o m n\n\"abc", "unterminated"),
    ])
    func refusesMalformedMessages(text: String, reason: String) {
        #expect {
            try parser.parse(text)
        } throws: { error in
            guard let failure = error as? InboundMessageError else { return false }
            return failure.error.code == .badMessage && failure.error.message.contains(reason)
        }
    }

    /// WebViewJavascriptBridge handler names are any text: percent-encoded in the head, accepted for the
    /// compatibility module only, and never with control characters (they reach logs).
    @Test func readsFreeFormMethodNamesForTheCompatibilityModuleOnly() throws {
        let parser = InboundMessageParser(limits: BridgeLimits(), freeFormMethodModule: "wvjb")
        let echo = try parser.parse("H1 call 1 0123456789abcdef main o wvjb ObjC%20Echo\n{}")
        #expect(echo.method == "ObjC Echo")
        let dollar = try parser.parse("H1 call 1 0123456789abcdef main o device get%24\n{}")
        #expect(dollar.method == "get$", "identifiers with $ are encoded too")
        for refused in [
            "H1 call 1 0123456789abcdef main o device ObjC%20Echo\n{}",
            "H1 call 1 0123456789abcdef main o wvjb log%0Aforged\n{}",
            "H1 call 1 0123456789abcdef main o wvjb %FF\n{}",
            "H1 call 1 0123456789abcdef main o wvjb \(String(repeating: "x", count: 129))\n{}",
        ] {
            #expect(throws: InboundMessageError.self, "\(refused.prefix(60))") { try parser.parse(refused) }
        }
    }

    @Test func keepsTheIDOfAMessageItCannotRead() {
        do {
            _ = try parser.parse("H1 call 42 0123456789abcdef main o m n\n[[[[[[1]]]]]]")
            Issue.record("expected a failure")
        } catch {
            #expect(error.id == 42)
            #expect(error.token == "0123456789abcdef")
            #expect(error.frame == .main)
        }
    }

    @Test func readsABatchMessageByMessage() throws {
        let batch = parser.parseBatch(
            "H1 call 1 0123456789abcdef main o m n\n[1]\nH1 call 2 0123456789abcdef main o m n\n[[[[[[0]]]]]]\n"
                + "H1 call 3 0123456789abcdef main o m n\n{}")
        #expect(batch.count == 3)
        #expect(try batch[0].get().id == 1)
        // The bad one fails alone, and still names its id so its caller hears about it.
        #expect(throws: InboundMessageError.self) { try batch[1].get() }
        if case .failure(let error) = batch[1] { #expect(error.id == 2) }
        #expect(try batch[2].get().id == 3)
        #expect(throws: InboundMessageError.self) {
            try parser.parse("H1 call 1 0123456789abcdef main o m n\n1\nH1 call 2 0123456789abcdef main o m n\n2")
        }
    }

    @Test func bracketsInsideStringsDoNotCount() throws {
        let message = try parser.parse("H1 call 1 0123456789abcdef main o m n\n\"[[[[[[[[\\\"]]]\"")
        #expect(message.id == 1)
    }

    @Test func refusesOversizedMessagesBeforeParsing() {
        let text = "H1 call 1 0123456789abcdef main o m n\n\"" + String(repeating: "x", count: 2000) + "\""
        #expect(throws: InboundMessageError.self) { try parser.parse(text) }
    }
}

@Suite struct OutboundMessageTests {
    @Test(arguments: ["0123456789abcdef", "tick", "a \"quoted\" \\ string", "line\nbreak", "sep\u{2028}arator", "é"])
    func quotedStringsRoundTripThroughJSON(_ text: String) throws {
        let quoted = OutboundMessage.quote(text)
        let decoded = try JSONDecoder().decode(String.self, from: Data(quoted.utf8))
        #expect(decoded == text)
        #expect(!quoted.contains("\n"))
    }
}
