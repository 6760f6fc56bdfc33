import Foundation
import FuzzSupport
@testable import HybridKit

/// Fuzzes what a page's binary call hands native before any byte is uploaded: `BinaryCallPayload` (the part sizes
/// in front of the arguments), the parser reading a whole `bcall` message around it, and `JSONShape`'s buffer scan
/// (which jumps through strings with memchr) against its byte-at-a-time reading; and the bridge scheme's routes
/// (`BridgeBytesSchemeHandler.Route`, which reads the id out of `hybrid-bytes://bridge/d/<id>` and `/u/<id>`), which
/// any script in any frame can fetch. The first byte picks the limits; the rest is the payload.
private let limits = [(parts: 64, total: 256 << 20), (parts: 2, total: 100)]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBinaryCall(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    var input = FuzzInput(data, count)
    let limit = limits[Int(input.byte()) % limits.count]
    let payload = input.restString()
    let bytes = Array(payload.utf8)
    switch BinaryCallPayload.parse(bytes, maxParts: limit.parts, maxTotal: limit.total) {
    case .success(let parsed):
        require(!parsed.sizes.isEmpty && parsed.sizes.count <= limit.parts, "\(parsed.sizes.count) parts")
        require(parsed.sizes.allSatisfy { $0 >= 0 }, "a negative size")
        require(parsed.sizes.reduce(0, +) <= limit.total, "sizes past the limit")
        // Only the canonical spelling is read: decimal sizes, no signs, spaces or leading zeros, one space after.
        let head = "[" + parsed.sizes.map(String.init).joined(separator: ",") + "] "
        require(parsed.argumentsOffset == head.utf8.count, "offset \(parsed.argumentsOffset) for \(head)")
        require(bytes.prefix(parsed.argumentsOffset).elementsEqual(head.utf8), "a non-canonical head was read")
        // A whole message around it reads the same parts and hands on exactly the rest as arguments.
        let parser = InboundMessageParser(
            limits: BridgeLimits(maxMessageBytes: 1 << 20, maxNestingDepth: 16).with(
                parts: limit.parts, total: limit.total))
        if !payload.contains("\n") {
            let message = "H1 bcall 1 0123456789abcdef main app://x m f\n" + payload
            if case .success(let read)? = parser.parseBatch(message).first {
                require(read.binaryParts == parsed.sizes, "the message read other parts")
                require(read.payload.elementsEqual(bytes.dropFirst(parsed.argumentsOffset)), "other arguments")
            }
        }
    case .failure(let error):
        require([.badMessage, .badArguments].contains(error.code), "refused with \(error.code)")
    }
    checkRoute(payload)
    // The buffer scan and the byte-at-a-time scan agree on every input.
    for depth in [1, 4, 128] {
        let fast = JSONShape.check(bytes, maxDepth: depth)
        let slow = JSONShape.check(AnyCollection(bytes), maxDepth: depth)
        require(fast == slow, "the scans disagree at depth \(depth): \(fast ?? "accepted") / \(slow ?? "accepted")")
    }
    return 0
}

extension BridgeLimits {
    fileprivate func with(parts: Int, total: Int) -> BridgeLimits {
        var limits = self
        limits.maxBinaryParts = parts
        limits.maxBinaryBytes = total
        return limits
    }
}

/// The payload as a path (and as a whole URL) on the bridge's scheme: a route is read only for `/d/<id>` or
/// `/u/<id>` on the bridge host with no query, the id 32 lowercase hex digits, and it names exactly the URL's path.
private func checkRoute(_ payload: String) {
    for text in ["hybrid-bytes://bridge/" + payload, "hybrid-bytes://" + payload, payload] {
        guard let url = URL(string: text), let route = BridgeBytesSchemeHandler.Route(url) else { continue }
        let (kind, id): (String, String) =
            switch route {
            case .download(let id): ("d", id)
            case .upload(let id): ("u", id)
            }
        require(ByteRedemptions.isWellFormedID(id), "a route read the id \(id)")
        require(
            id.utf8.count == 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) },
            "an id that is not 32 lowercase hex digits: \(id)")
        require(url.host == BridgeBytesSchemeHandler.host && url.query == nil, "a route off the bridge host: \(text)")
        require(url.path == "/\(kind)/\(id)", "the route \(kind)/\(id) is not the path \(url.path)")
    }
}
