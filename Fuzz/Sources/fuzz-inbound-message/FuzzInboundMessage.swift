import Foundation
import FuzzSupport
@testable import HybridKit

/// Fuzzes `InboundMessageParser`: every post a page makes to the bridge (any script in any frame can post). The
/// first byte picks the limits; the rest is the post. What is accepted must be a message the bridge can route.
private let parsers = [
    InboundMessageParser(limits: BridgeLimits()),
    InboundMessageParser(limits: BridgeLimits(maxMessageBytes: 512, maxNestingDepth: 4), freeFormMethodModule: "wvjb"),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInboundMessage(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    var input = FuzzInput(data, count)
    let parser = parsers[Int(input.byte()) % parsers.count]
    let text = input.restString()
    let results = parser.parseBatch(text)
    let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
    require(results.count <= max(1, (lines + 1) / 2), "\(results.count) messages from \(lines) lines")
    for case .success(let message) in results {
        require(text.utf8.count <= parser.limits.maxMessageBytes, "a post over the limit was read")
        require(message.id >= 0, "negative id \(message.id)")
        require(!message.origin.isEmpty && !message.origin.contains(" "), "origin \(message.origin.debugDescription)")
        require(!message.payload.contains(UInt8(ascii: "\n")), "payload spans lines")
        if message.kind == .call || message.kind == .stream || message.kind == .binaryCall {
            require(InboundMessageParser.isName(message.module), "module \(message.module.debugDescription)")
            require(
                InboundMessageParser.isName(message.method)
                    || (message.module == parser.freeFormMethodModule
                        && InboundMessageParser.isFreeFormName(message.method)),
                "method \(message.method.debugDescription)")
        }
        // The shape check ran: a decoder will not be asked to recurse deeper than the limit allows.
        require(
            JSONShape.check(message.payload, maxDepth: parser.limits.maxNestingDepth) == nil,
            "payload passed without its shape check")
        // Accepted JSON decodes (the bridge hands payloads to JSONDecoder next): depth-bounded, so this ends.
        if !message.payload.isEmpty {
            _ = try? JSONDecoder().decode(JSONValue.self, from: Data(message.payload))
        }
    }
    // One message at a time gives the same answers as the whole batch.
    if case .success(var rest) = parser.checkSize(text) {
        var one: [Result<InboundMessage, InboundMessageError>] = []
        while let next = parser.parseNext(&rest) { one.append(next) }
        require(one == results, "parseNext and parseBatch disagree")
    }
    return 0
}
