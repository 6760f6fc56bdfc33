import Foundation
import Testing

@testable import HybridKit

/// The bridge's plain-string shortcut writes exactly what `JSONEncoder` writes and reads exactly what `JSONDecoder`
/// reads, and leaves every string that needs escaping, and every argument that is not one plain literal, to them.
@Suite struct JSONStringFastPathTests {
    static let strings = [
        "", "abc", "héllo wörld ☃ 😀", "a/b", "a\"b", "a\\b", "tab\there", "line\nbreak", "\u{1}", "\u{7F}",
        "\u{2028}\u{2029}", "</script>", String(repeating: "x", count: 1 << 20),
    ]

    @Test func resultsAreWrittenAsJSONEncoderWritesThem() throws {
        let encoder = JSONEncoder()
        for string in Self.strings {
            let expected = String(decoding: try encoder.encode(string), as: UTF8.self)
            #expect(try BridgeMethod.encode(string) == expected, "\(string.prefix(40).debugDescription)")
            let fast = JSONStringFastPath.literal(string)
            let plain = !string.unicodeScalars.contains { $0.value < 0x20 || "\"/\\".unicodeScalars.contains($0) }
            #expect((fast != nil) == plain, "\(string.prefix(40).debugDescription)")
        }
    }

    @Test func argumentsAreReadAsJSONDecoderReadsThem() throws {
        let decoder = JSONDecoder()
        for string in Self.strings {
            let json = String(decoding: try JSONEncoder().encode(string), as: UTF8.self)
            for text in [json, " \(json)\n"] {
                let read = try BridgeMethod.decode(String.self, from: Substring(text).utf8)
                #expect(read == (try decoder.decode(String.self, from: Data(text.utf8))))
            }
        }
        // Not one plain literal: the decoder decides (and refuses what it must), never the shortcut.
        #expect(JSONStringFastPath.plainString(Substring(#"["a"]"#).utf8) == nil)
        #expect(JSONStringFastPath.plainString(Substring(#""a\nb""#).utf8) == nil)
        #expect(JSONStringFastPath.plainString(Substring("\"a\u{1}b\"").utf8) == nil)
        #expect(JSONStringFastPath.plainString(Substring(#""a" "b""#).utf8) == nil)
        #expect(JSONStringFastPath.plainString(Substring(#"""#).utf8) == nil)
        #expect(throws: BridgeError.self) { try BridgeMethod.decode(String.self, from: Substring("\"a\u{1}b\"").utf8) }
        #expect(throws: BridgeError.self) { try BridgeMethod.decode(String.self, from: Substring(#""a" "b""#).utf8) }
        #expect(throws: BridgeError.self) { try BridgeMethod.decode(Int.self, from: Substring(#""1""#).utf8) }
    }
}
