import Foundation
import Testing

@testable import HybridKit

/// A page string holding a lone UTF-16 surrogate reaches native as a `\uD800`-style escape (`JSON.stringify`
/// writes it so). The bridge refuses such arguments with `bad_arguments`, whatever the platform's JSON decoder
/// would have made of them (refused, or U+FFFD), and names the escape.
@Suite struct LoneSurrogateTests {
    struct Labelled: Decodable, Equatable {
        var label: String
    }

    func refusal<Args: Decodable>(_ payload: String, as type: Args.Type) -> BridgeError? {
        do {
            _ = try BridgeMethod.decode(Args.self, from: Substring(payload).utf8)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        (#""\ud800 lone""#, #"\ud800"#),
        (#""\uDBFF""#, #"\uDBFF"#),
        (#""lone \udc00 low""#, #"\udc00"#),
        (#""pair reversed \ude00\ud83d""#, #"\ude00"#),
        (#""high then text \ud83dx""#, #"\ud83d"#),
        (#""high then another escape \ud83d\n""#, #"\ud83d"#),
        (#""two highs \ud83d\ud83d\ude00""#, #"\ud83d"#),
    ])
    func aLoneSurrogateIsRefusedAsBadArguments(payload: String, escape: String) throws {
        let error = try #require(refusal(payload, as: String.self), "\(payload) was accepted")
        #expect(error.code == .badArguments)
        #expect(error.message.contains("lone UTF-16 surrogate (\(escape))"), "\(error.message)")
    }

    @Test func theRefusalDoesNotDependOnTheArgumentType() throws {
        for error in [
            refusal(#"{"label":"\ud800"}"#, as: Labelled.self), refusal(#"["\udfff"]"#, as: JSONValue.self),
            refusal(#"{"ignored":"\ud800"}"#, as: NoArguments.self),
        ] {
            #expect(error?.code == .badArguments && error?.message.contains("lone UTF-16 surrogate") == true)
        }
    }

    @Test func pairsAndEscapedBackslashesAreNotSurrogates() throws {
        #expect(try BridgeMethod.decode(String.self, from: Substring(#""\ud83d\ude00 ok""#).utf8) == "😀 ok")
        #expect(try BridgeMethod.decode(String.self, from: Substring(#""\uD83D\uDE00""#).utf8) == "😀")
        // An escaped backslash followed by "ud800" is text, not an escape.
        #expect(try BridgeMethod.decode(String.self, from: Substring(#""\\ud800""#).utf8) == #"\ud800"#)
        #expect(try BridgeMethod.decode(String.self, from: Substring(#""\u00e9\"\\""#).utf8) == #"é"\"#)
        #expect(JSONShape.loneSurrogateEscape(in: Array(#""\ud800"#.utf8)) == #"\ud800"#)
        #expect(JSONShape.loneSurrogateEscape(in: Array(#""\ud8"#.utf8)) == nil)
    }
}
