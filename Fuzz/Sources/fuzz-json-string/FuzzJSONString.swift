import Foundation
import FuzzSupport
@testable import HybridKit

/// Fuzzes the bridge's plain-string shortcut (`JSONStringFastPath`) against Foundation's coders, which it stands in
/// for: any script in any frame writes a call's argument text, and a method's result can be any string a page or
/// server handed native code. The first byte picks the side; the rest is the argument's JSON text (as the inbound
/// message carries it, already a Swift string) or the result string.
///
/// What must hold: a literal the shortcut reads is exactly what `JSONDecoder` reads from the same text (the shortcut
/// never accepts what the decoder refuses); `BridgeMethod.decode` agrees with the decoder or refuses with a typed
/// error (a lone surrogate escape is refused on purpose); a literal the shortcut writes is byte for byte
/// `JSONEncoder`'s and reads back to the same string.
private let decoder = JSONDecoder()
private let encoder = JSONEncoder()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONString(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    var input = FuzzInput(data, count)
    let mode = input.byte() % 2
    let text = input.restString()
    if mode == 0 {
        let decoded = try? decoder.decode(String.self, from: Data(text.utf8))
        if let fast = JSONStringFastPath.plainString(Substring(text).utf8) {
            require(decoded != nil, "the shortcut read \(text.debugDescription), which JSONDecoder refuses")
            require(
                decoded.map { Array($0.utf8) == Array(fast.utf8) } ?? false,
                "the shortcut read \(fast.debugDescription), JSONDecoder \(String(describing: decoded))")
        }
        do {
            let read = try BridgeMethod.decode(String.self, from: Substring(text).utf8)
            require(
                decoded.map { Array($0.utf8) == Array(read.utf8) } ?? false,
                "the bridge read \(read.debugDescription) from \(text.debugDescription), JSONDecoder "
                    + String(describing: decoded))
        } catch {
            // Refused with a typed error: fine whatever the decoder does (lone surrogates are refused on purpose).
        }
    } else {
        guard let expected = try? encoder.encode(text) else { return 0 }
        if let fast = JSONStringFastPath.literal(text) {
            require(
                Array(fast.utf8) == Array(expected),
                "the shortcut wrote \(fast.debugDescription), JSONEncoder \(String(decoding: expected, as: UTF8.self))")
            let back = try? decoder.decode(String.self, from: Data(fast.utf8))
            require(
                back.map { Array($0.utf8) == Array(text.utf8) } ?? false,
                "\(fast.debugDescription) reads back as \(String(describing: back))")
        }
        let written = (try? BridgeMethod.encode(text)).map { Array($0.utf8) }
        require(written == Array(expected), "BridgeMethod.encode differs from JSONEncoder for \(text.debugDescription)")
    }
    return 0
}
