import Foundation
import FuzzSupport
@testable import HybridKit

/// Fuzzes what a network page posts to first-screen prefetch's message handler (`PrefetchMessage.parse`, the
/// strict reader of PrefetchRuntime/network.js's messages). Any script of the page writes these bytes (frames and
/// other origins are refused before parsing, by the engine's frame, but parse the same way if they got there).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPrefetchMessage(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    var input = FuzzInput(data, count)
    let text = String(decoding: input.rest(), as: UTF8.self)
    let message: PrefetchMessage
    do throws(PrefetchMessageRefusal) {
        message = try PrefetchMessage.parse(text)
    } catch {
        // Only these two: a size refusal exactly over the limit, everything else malformed.
        require(
            error == .malformed || (error == .tooLarge && text.utf8.count > PrefetchMessage.maximumBytes),
            "refused \(error) for \(text.utf8.count) bytes")
        return 0
    }
    require(text.utf8.count <= PrefetchMessage.maximumBytes, "\(text.utf8.count) bytes accepted")
    require(message.token.utf8.count <= 64, "a \(message.token.utf8.count)-byte token accepted")
    guard message.kind == .fetch else {
        require(message.request == nil && message.credentials == nil, "a \(message.kind) message carries a request")
        return 0
    }
    guard let request = message.request, message.credentials != nil else { fail("a fetch without its request") }
    require(request.method == "GET" || request.method == "HEAD", "method \(request.method)")
    require(WebOrigin(request.url) != nil, "no http(s) origin: \(request.url)")
    require(request.url.user == nil && request.url.password == nil, "userinfo in \(request.url)")
    require(request.body == nil, "a body")
    require(request.headers.count <= PrefetchMessage.maximumHeaders, "\(request.headers.count) headers")
    for (name, value) in request.headers {
        require(HTTPToken.isToken(name) && name == name.lowercased(), "header name \(name.debugDescription)")
        require(
            !value.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" },
            "header \(name) carries \(value.debugDescription)")
    }
    // Read twice, the same.
    require((try? PrefetchMessage.parse(text)) == message, "a second read differs")
    return 0
}
