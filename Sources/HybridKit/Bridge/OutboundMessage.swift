import Foundation

/// Native → page messages as JSON text. Payloads arrive already encoded, so a batch is built by
/// concatenation, with no re-encoding of results.
enum OutboundMessage {
    /// `state` is a JSON object (name → value) of the published state the frame may read.
    static func ready(token: String, catalog: [String: [String]], state: String = "{}") -> String {
        #"{"k":"ready","p":\#(quote(token)),"modules":\#(json(catalog)),"state":\#(state)}"#
    }

    /// Published state changed: the main frame asks again (and tells its subframes to), each for what it may read.
    static let stateChanged = #"{"k":"stc"}"#

    /// The state every frame finds at document start, each entry with the access the runtime applies itself:
    /// `o` the origins (null: any), `s` whether subframes may read it.
    static func stateSnapshot(_ entries: [(name: String, json: String, origins: Set<String>?, subframes: Bool)])
        -> String
    {
        let items = entries.map { entry in
            let origins = entry.origins.map { json($0.sorted()) } ?? "null"
            return #"{"n":\#(quote(entry.name)),"v":\#(entry.json),"o":\#(origins),"s":\#(entry.subframes)}"#
        }
        return #"{"k":"st0","e":[\#(items.joined(separator: ","))]}"#
    }

    /// Elements of stream `id` (JSON texts), and its end when `end` is set: success, or the error it ended with.
    static func streamChunk(
        token: String, id: Int, elements: [String], end: Result<Void, BridgeError>?, bytes: Bool = false
    ) -> String {
        let head =
            #"{"k":"sc","p":\#(quote(token)),"id":\#(id),"d":[\#(elements.joined(separator: ","))]"#
            + (bytes ? #","b":1"# : "")
        switch end {
        case nil: return head + "}"
        case .success: return head + #","end":true}"#
        case .failure(let error): return head + #","end":true,"e":\#(errorObject(error))}"#
        }
    }

    /// What a synchronous call's prompt returns.
    static func syncResult(json: String) -> String { #"{"ok":true,"r":\#(json)}"# }

    static func syncFailure(_ error: BridgeError) -> String { #"{"ok":false,"e":\#(errorObject(error))}"# }

    /// `bytes`: the result holds placeholders of bytes the page fetches before it resolves the call.
    static func result(token: String, id: Int, json: String, bytes: Bool = false) -> String {
        bytes
            ? #"{"k":"r","p":\#(quote(token)),"id":\#(id),"ok":true,"b":1,"r":\#(json)}"#
            : #"{"k":"r","p":\#(quote(token)),"id":\#(id),"ok":true,"r":\#(json)}"#
    }

    /// A binary call was admitted: the page uploads its bytes under `upload`.
    static func uploadTicket(token: String, id: Int, upload: String) -> String {
        #"{"k":"up","p":\#(quote(token)),"id":\#(id),"u":\#(quote(upload))}"#
    }

    static func failure(token: String, id: Int, error: BridgeError) -> String {
        #"{"k":"r","p":\#(quote(token)),"id":\#(id),"ok":false,"e":\#(errorObject(error))}"#
    }

    /// An error for a message no call can be matched to; the page emits it as an 'error' event.
    static func unattributed(_ error: BridgeError) -> String {
        #"{"k":"err","e":\#(errorObject(error))}"#
    }

    static func event(name: String, json: String, bytes: Bool = false) -> String {
        #"{"k":"ev","e":\#(quote(name)),"d":\#(json)"# + (bytes ? #","b":1}"# : "}")
    }

    static func jsCall(token: String, id: Int, handler: String, json: String) -> String {
        #"{"k":"jscall","p":\#(quote(token)),"id":\#(id),"n":\#(quote(handler)),"d":\#(json)}"#
    }

    static func batch(_ messages: [String]) -> String { "[" + messages.joined(separator: ",") + "]" }

    private static func errorObject(_ error: BridgeError) -> String {
        #"{"code":\#(quote(error.code.rawValue)),"message":\#(quote(error.message))}"#
    }

    /// A JSON string literal. Strings of plain ASCII (tokens, names: every result carries one) are quoted
    /// directly; anything else goes through the escaper batches use (its output is valid JSON too).
    static func quote(_ string: String) -> String {
        let plain = string.utf8.allSatisfy { byte in
            byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
        }
        return plain ? "\"\(string)\"" : javaScriptString(string)
    }

    /// `text` as a JavaScript string literal (double-quoted). A byte-level pass: batches are large and
    /// mostly ASCII, and JSONEncoder would copy them through Foundation's string bridging.
    static func javaScriptString(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            let hex = Array("0123456789abcdef".utf8)
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + bytes.count / 8 + 2)
            out.append(UInt8(ascii: "\""))
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    out.append(UInt8(ascii: "\\"))
                    out.append(byte)
                case ..<0x20:
                    out.append(contentsOf: [
                        UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    ])
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0x0F)])
                case 0xE2
                where index + 1 < bytes.count && bytes[index] == 0x80
                    && (bytes[index + 1] == 0xA8 || bytes[index + 1] == 0xA9):
                    // U+2028 and U+2029 end a line inside string literals of engines older than ES2019.
                    out.append(contentsOf: Array("\\u202".utf8))
                    out.append(bytes[index + 1] == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9"))
                    index += 2
                default:
                    out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
            return String(decoding: out, as: UTF8.self)
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private static func json<Value: Encodable>(_ value: Value) -> String {
        (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}
