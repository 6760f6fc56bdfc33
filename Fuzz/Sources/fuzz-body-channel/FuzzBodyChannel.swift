import Foundation
import FuzzSupport
import HybridKit

/// Fuzzes the body channel's checks of a request head (`BodyChannelRoutes.preflight` and `open`) and the upload
/// that follows: any local process or any page can connect to the loopback listener and send any head. A body is
/// reserved first, as the hooks do; flag bits let the fuzzer use the real key, id and origin (it cannot guess 128
/// random bits) while every other field is its own.
private final class NoContent: SchemeHandler {
    func start(_ task: any SchemeTask) {}
    func stop(_ task: any SchemeTask) {}
}

private let pageOrigin = "https://app.example.com"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBodyChannel(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    var input = FuzzInput(data, count)
    let flags = input.byte()
    let size = Int(input.byte()) * 4
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
