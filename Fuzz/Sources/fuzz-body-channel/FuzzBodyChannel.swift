import Foundation
import FuzzSupport
import HybridKit

/// Fuzzes the body channel's checks of a request head (`BodyChannelRoutes.preflight` and `open`) and the upload
/// that follows: any local process or any page can connect to the loopback listener and send any head. A body is
/// reserved first, as the hooks do; flag bits let the fuzzer use the real key, id and origin (it cannot guess 128
/// random bits) while every other field is its own.
///
/// With the flags' top bit, the head goes to the proxy route instead (`BodyChannelRoutes.openProxy`): a request
/// descriptor (valid JSON of fuzzed fields, or fuzzed bytes), the page's origin served by the view or not, and the
/// body after it. A refused head must reach neither the proxy nor the store.
private final class NoContent: SchemeHandler {
    func start(_ task: any SchemeTask) {}
    func stop(_ task: any SchemeTask) {}
}

/// A proxy that keeps what it was asked and never answers (the body then stays until the exchange is cancelled).
private final class SilentProxy: RequestProxying, @unchecked Sendable {
    struct Cancel: ProxyCancelling { func cancel() {} }
    var requests: [ProxiedRequest] = []
    func perform(_ request: ProxiedRequest, events: @escaping @Sendable (ProxyEvent) -> Void) -> any ProxyCancelling {
        requests.append(request)
        return Cancel()
    }
}

/// The engine's request for one of the view's pages.
private final class PageLoad: SchemeTask {
    let request: EngineRequest
    init(_ request: EngineRequest) { self.request = request }
    func respond(_ response: SchemeResponse) {}
    func send(_ data: Data) {}
    func finish() {}
    func fail(_ error: SchemeTaskError) {}
}

private func fuzzProxy(_ input: inout FuzzInput, flags: UInt8, size: Int) {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
    let proxy = SilentProxy()
    let handler = InterceptingSchemeHandler(wrapping: NoContent(), proxy: proxy, hop: { $0() })
    let routes = BodyChannelRoutes()
    routes.register(handler)
    let served = flags & 2 != 0
    if served, let page = URL(string: pageOrigin + "/") {
        handler.start(PageLoad(EngineRequest(url: page, method: "GET")))
    }
    let method = flags & 1 != 0 ? "POST" : text(input.field(maxCount: 16))
    let path = flags & 32 != 0 ? BodyChannelRoutes.proxyPath : text(input.field(maxCount: 64))
    let key = flags & 4 != 0 ? handler.bodyKey : text(input.field(maxCount: 64))
    let origin = flags & 16 != 0 ? pageOrigin : text(input.field(maxCount: 64))
    let contentLength = flags & 64 != 0 ? nil : Optional(size)
    let descriptor: String
    if flags & 8 != 0 {
        // Valid JSON of fuzzed fields, percent-encoded as the hooks send it.
        let url = text(input.field(maxCount: 64))
        let verb = text(input.field(maxCount: 16))
        let name = text(input.field(maxCount: 16))
        let value = text(input.field(maxCount: 32))
        let object: [String: Any] = ["url": url, "method": verb, "headers": [[name, value]]]
        let json = (try? JSONSerialization.data(withJSONObject: object)).map { text(Array($0)) } ?? "{}"
        descriptor = json.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    } else {
        descriptor = text(input.field(maxCount: 128))
    }
    let request = BodyChannelRoutes.Request(
        method: method, path: path, origin: origin, key: key, bodyID: nil, contentLength: contentLength,
        descriptor: descriptor)
    let body = input.rest()
    if let cors = routes.preflight(request) {
        require(path == BodyChannelRoutes.proxyPath || path == BodyChannelRoutes.path, "preflight for \(path)")
        require(served && origin.lowercased() == pageOrigin, "proxy preflight answered \(origin.debugDescription)")
        require(cors.contains { $0 == ("Access-Control-Allow-Origin", origin) }, "CORS for another origin")
    }
    let exchange: BodyChannelProxy
    do {
        exchange = try routes.openProxy(request) { _ in }
    } catch {
        require(proxy.requests.isEmpty, "a refused head (\(error)) reached the proxy")
        require(handler.store.count == 0, "a refused head (\(error)) left a body in the store")
        return
    }
    require(method.uppercased() == "POST" && path == BodyChannelRoutes.proxyPath, "opened \(method) \(path)")
    require(key == handler.bodyKey, "opened with a wrong key")
    require(served && origin.lowercased() == pageOrigin, "opened for \(origin.debugDescription)")
    require(contentLength == size && exchange.upload.expected == size, "opened \(String(describing: contentLength))")
    require(proxy.requests.count == 1, "the proxy got \(proxy.requests.count) requests")
    require(proxy.requests.first?.streamedBody?.count == size, "the proxy streams another body")
    require(proxy.requests.first?.url.scheme != nil, "the proxy got a relative URL")
    require(routes.proxiesOpened == 1, "proxies counted \(routes.proxiesOpened)")
    var writing = exchange.upload
    var refused = false
    for chunk in stride(from: 0, to: body.count, by: 7).map({ Array(body[$0..<min($0 + 7, body.count)]) }) {
        do { try writing.write(contentsOf: chunk) } catch {
            refused = true
            break
        }
    }
    require(refused == (body.count > size), "a body of \(body.count) for \(size) was \(refused ? "" : "not ")refused")
    if !refused {
        let finished = (try? writing.finish()) != nil
        require(finished == (body.count == size), "finish of \(body.count)/\(size) was \(finished)")
        if finished {
            let streamed = proxy.requests.first?.streamedBody as? StoredBody
            require(streamed?.completeData == Data(body), "the proxy would send other bytes than those received")
        }
    }
    exchange.cancel()
    require(handler.store.count == 0, "a cancelled exchange left its body in the store")
}

private let pageOrigin = "https://app.example.com"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBodyChannel(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    var input = FuzzInput(data, count)
    let flags = input.byte()
    let size = Int(input.byte()) * 4
    if flags & 128 != 0 {
        fuzzProxy(&input, flags: flags, size: size)
        return 0
    }
    let store = BodyStore()
    let handler = InterceptingSchemeHandler(wrapping: NoContent(), store: store, hop: { $0() })
    let routes = BodyChannelRoutes()
    routes.register(handler)
    let owner = BodyOwner(origin: pageOrigin, scope: ObjectIdentifier(handler))
    guard let id = try? store.begin(size: size, contentType: "text/plain", owner: owner) else {
        require(false, "reserving \(size) bytes failed")
        return 0
    }

    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
    let method = flags & 1 != 0 ? "POST" : text(input.field(maxCount: 16))
    let path = flags & 2 != 0 ? BodyChannelRoutes.path : text(input.field(maxCount: 64))
    let key = flags & 4 != 0 ? handler.bodyKey : text(input.field(maxCount: 64))
    let bodyID = flags & 8 != 0 ? id : text(input.field(maxCount: 64))
    let origin = flags & 16 != 0 ? pageOrigin : text(input.field(maxCount: 64))
    // As the listener reads them: no length when chunked, else Content-Length as an Int.
    let lengthText = flags & 32 != 0 ? String(size) : text(input.field(maxCount: 24))
    let contentLength = flags & 64 != 0 ? nil : Int(lengthText)
    let request = BodyChannelRoutes.Request(
        method: method, path: path, origin: origin, key: key, bodyID: bodyID, contentLength: contentLength)
    let body = input.rest()

    if let cors = routes.preflight(request) {
        require(path == BodyChannelRoutes.path, "preflight answered for \(path.debugDescription)")
        require(origin.lowercased() == pageOrigin && size > 0, "preflight answered \(origin.debugDescription)")
        require(cors.contains { $0 == ("Access-Control-Allow-Origin", origin) }, "CORS for another origin")
    }

    let upload: BodyChannelUpload
    do {
        upload = try routes.open(request)
    } catch {
        // A refused head leaves the page's body as it was, so a forged request cannot destroy it, except a wrong
        // length from the right page, which ends that body (the page learns at once).
        if case .lengthMismatch = error {
            require(!store.awaitsChannelUpload(id, origin: pageOrigin), "a refused length kept the body waiting")
        } else if size > 0 {
            require(store.awaitsChannelUpload(id, origin: pageOrigin), "refusal \(error) destroyed the body")
        }
        return 0
    }
    require(method.uppercased() == "POST" && path == BodyChannelRoutes.path, "opened \(method) \(path)")
    require(key == handler.bodyKey && bodyID == id, "opened with a wrong key or id")
    require(origin.lowercased() == pageOrigin, "opened for \(origin.debugDescription)")
    require(contentLength == size && upload.expected == size, "opened \(String(describing: contentLength)) of \(size)")
    require(routes.uploadsOpened == 1, "uploads counted \(routes.uploadsOpened)")
    // A second head for the same body is refused while the first is open.
    require((try? routes.open(request)) == nil, "one body opened twice")

    var writing = upload
    var refused = false
    for chunk in stride(from: 0, to: body.count, by: 7).map({ Array(body[$0..<min($0 + 7, body.count)]) }) {
        do { try writing.write(contentsOf: chunk) } catch {
            refused = true
            break
        }
    }
    require(writing.received <= size, "received \(writing.received) of \(size)")
    require(refused == (body.count > size), "a body of \(body.count) for \(size) was \(refused ? "" : "not ")refused")
    if refused {
        // A refused write discards the body (the listener then answers and stops reading); nothing of it stays.
        require((try? store.take(id, owner: owner)) == nil, "a refused upload left its body in the store")
        return 0
    }
    let finished = (try? writing.finish()) != nil
    require(finished == (body.count == size), "finish of \(body.count)/\(size) was \(finished)")
    if finished {
        let taken = try? store.take(id, owner: owner)
        require(taken?.data == Data(body), "the stored body differs from the bytes sent")
    }
    return 0
}
