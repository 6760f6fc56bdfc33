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

    /// Hostile argument texts a frame can post: the bridge reads each as `JSONDecoder` does, or refuses it with a
    /// typed error, never reads more (or less) than the decoder.
    @Test func hostileArgumentsReadAsTheDecoderReadsThemOrAreRefused() throws {
        let decoder = JSONDecoder()
        let texts = [
            #""\ud800""#, #""\udc00x""#, #""a\u0000b""#, #""\u2028\u2029""#, "\"\u{2028}\u{2029}\"", #""a\/b""#,
            #""__proto__""#, #""\u005f_proto__""#, "\"\u{FEFF}\"", "\u{FEFF}\"bom\"", "\"a\u{0}b\"", "\"\u{7F}\"",
            "\"\u{FFFD}\"", "\"\u{10FFFF}\"", "\"\u{FFFE}\"", #""a"b""#, #""a\""#, "\"", "\"\"\"", "\t\"x\"\r\n",
            "\u{A0}\"x\"", "\"x\"\u{A0}", #""\uD83D\uDE00""#, #""\uDE00\uD83D""#,
            "\"" + String(repeating: "\u{1F600}", count: 1 << 16) + "\"",
        ]
        for text in texts {
            let expected = try? decoder.decode(String.self, from: Data(text.utf8))
            let read = try? BridgeMethod.decode(String.self, from: Substring(text).utf8)
            if let read {
                #expect(read.utf8.elementsEqual(expected?.utf8 ?? "".utf8) && expected != nil, "\(text.prefix(40))")
            } else {
                // Refused: the decoder refuses too, or the text holds a lone surrogate (refused on purpose).
                #expect(expected == nil || JSONShape.loneSurrogateEscape(in: Substring(text).utf8) != nil, "\(text)")
            }
        }
        // Bytes that are not UTF-8 cannot reach the shortcut as a Swift string: repaired to U+FFFD first, and read
        // as the decoder reads the repaired text.
        let invalid = String(decoding: [0x22, 0xC0, 0xAF, 0xED, 0xA0, 0x80, 0xFF, 0x22] as [UInt8], as: UTF8.self)
        #expect(
            try BridgeMethod.decode(String.self, from: Substring(invalid).utf8)
                == "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}")
    }

    /// Hostile results a method can return (whatever a page or server handed native code): written as
    /// `JSONEncoder` writes them, and read back by the page's JSON.parse as the same string.
    @Test func hostileResultsAreWrittenAsTheEncoderWritesThem() throws {
        let encoder = JSONEncoder()
        for string in [
            "\u{0}", "a\u{0}b", "\u{2028}\u{2029}", "</script><script>", "__proto__", "\u{FEFF}", "\u{7F}\u{80}\u{9F}",
            "\u{10FFFF}", "\u{FFFE}", "\\/", "\u{1B}[31m", String(repeating: "\u{1F600}", count: 1 << 18),
        ] {
            let written = try BridgeMethod.encode(string)
            #expect(Array(written.utf8) == Array(try encoder.encode(string)), "\(string.prefix(20).debugDescription)")
            #expect(try JSONDecoder().decode(String.self, from: Data(written.utf8)) == string)
        }
    }
}
