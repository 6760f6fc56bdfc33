import AsyncHTTPClient
import Foundation
import HybridKit
import NIOCore
import NIOHTTP1
import Synchronization

/// A `NetworkFetching` on AsyncHTTPClient that streams a request body with a known Content-Length while it is
/// still arriving (`EngineRequest/bodySource`: the request hooks' body by id, sent while the page uploads), and
/// never copies a body whole into the client (it goes out in slices, from the stored bytes).
///
/// Redirects as HybridKit's `URLSessionNetworkFetcher` follows them: hop by hop with `RedirectRule` (307/308 re-send the
/// method and body — read again from the start —, 301/302 turn a POST into a GET, 303 a GET without body,
/// Authorization dropped across origins), up to `RedirectRule/limit`; with `followRedirects` false the 3xx is the
/// response. The final response carries `SchemeResponse/redirection` when redirects led to it. No cookies of its
/// own: with a cookie handler each hop carries the handler's `Cookie` header for its URL and every `Set-Cookie`
/// (redirects' included) goes to the handler, never to the engine. Gzip and deflate are decoded here, as URLSession
/// does.
public struct HTTPClientNetworkFetcher: NetworkFetching {
    private let cookies: (any HTTPCookieHandling)?
    private let client: HTTPClient

    /// - Parameter cookies: where cookies come from and go to; nil sends none and drops what servers set.
    public init(cookies: (any HTTPCookieHandling)? = nil) {
        self.cookies = cookies
        client = FetcherHTTPClient.shared
    }

    /// Streams `EngineRequest/bodySource` as it arrives.
    public var readsBodySource: Bool { true }

    public func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        let sink = FetchEventSink(events)
        let exchange = FetchExchange(
            request: request, followsRedirects: followRedirects, cookies: cookies, client: client)
        let task = Task {
            do throws(FetchFailure) {
                try await exchange.run(sink)
            } catch {
                sink.send(.failed(Task.isCancelled ? "\(request.url.absoluteString): cancelled" : error.description))
            }
        }
        return FetchHandle(task: task)
    }
}

/// The process-wide client of the fetcher (one connection pool; like `HTTPClient.shared`, never shut down). It
/// follows no redirects (the exchange does, by the browser rules), asks for gzip/deflate and decodes them (a decoded
/// chunk at most 100× its compressed size), and gives up on a server silent for 60 s once the request is sent.
enum FetcherHTTPClient {
    static let shared: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(30), read: .seconds(60)),
            decompression: .enabled(limit: .ratio(100)))
        configuration.httpVersion = .automatic
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}

/// Why a fetch failed; the message names the URL.
struct FetchFailure: Error, CustomStringConvertible {
    let description: String
}

private struct FetchHandle: NetworkFetchCancelling {
    let task: Task<Void, Never>

    func cancel() {
        task.cancel()
    }
}

/// Passes events on until the terminal one, then lets go of the owner's closure (it usually holds whatever holds the
/// fetch, and that cycle must end with it). Events come from the fetch's one task, in order.
private final class FetchEventSink: Sendable {
    private let events: Mutex<(@Sendable (NetworkFetchEvent) -> Void)?>

    init(_ events: @escaping @Sendable (NetworkFetchEvent) -> Void) { self.events = Mutex(events) }

    func send(_ event: NetworkFetchEvent) {
        let events = self.events.withLock { events in
            let current = events
            switch event {
            case .finished, .failed: events = nil
            case .response, .data: break
            }
            return current
        }
        events?(event)
    }
}

/// One fetch from its first hop to the last byte of its final response.
private struct FetchExchange: Sendable {
    let request: EngineRequest
    let followsRedirects: Bool
    let cookies: (any HTTPCookieHandling)?
    let client: HTTPClient

    func run(_ sink: FetchEventSink) async throws(FetchFailure) {
        var hop = RedirectHop(
            url: request.url, method: request.method,
            headers: request.headers.filter { $0.name.caseInsensitiveCompare("Cookie") != .orderedSame },
            body: request.body)
        // The body as it arrives travels beside the hops (they carry bytes in hand): it goes wherever a hop would
        // carry the body, and is dropped where a redirect drops it.
        var streamed = request.body == nil ? request.bodySource : nil
        var redirects = 0
        var bodyResends = 0
        while true {
            let response = try await send(hop, streamed: streamed)
            let status = Int(response.status.code)
            store(response.headers["set-cookie"], from: hop.url)
            guard followsRedirects, RedirectRule.redirectStatuses.contains(status) else {
                return try await deliver(
                    response, redirects: redirects, url: hop.url, bodyResends: bodyResends,
                    crossedOrigins: hop.crossedOrigins, sink)
            }
            guard let location = response.headers.first(name: "location") else {
                throw FetchFailure(description: "\(hop.url.absoluteString) answered \(status) without a Location")
            }
            guard redirects < RedirectRule.limit else {
                throw FetchFailure(description: "\(hop.url.absoluteString): more than \(RedirectRule.limit) redirects")
            }
            let next: RedirectHop
            do throws(RedirectRefusal) {
                next = try RedirectRule.next(after: hop, status: status, location: location)
            } catch {
                throw FetchFailure(description: error.reason)
            }
            await response.body.drain()
            // The rule turns the request into a GET exactly when it drops the body.
            if next.method == "GET" && hop.method != "GET" { streamed = nil }
            if next.body != nil || streamed != nil { bodyResends += 1 }
            redirects += 1
            hop = next
        }
    }

    private func send(_ hop: RedirectHop, streamed: (any RequestBodySource)?) async throws(FetchFailure)
        -> HTTPClientResponse
    {
        var outgoing = HTTPClientRequest(url: hop.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: hop.method)
        for header in hop.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let cookies,
            let header = cookies.cookieHeader(for: hop.url, firstParty: nil, method: hop.method, includeHTTPOnly: true)
        {
            outgoing.headers.add(name: "Cookie", value: header)
        }
        if let body = streamed.map(ProxyBody.stream) ?? hop.body.map(ProxyBody.data) {
            outgoing.body = body.clientBody
        }
        do {
            return try await client.execute(outgoing, deadline: .distantFuture)
        } catch {
            throw failure(error, url: hop.url)
        }
    }

    /// Status and headers as the server sent them, minus what the client already undid (decoded gzip or deflate,
    /// de-chunked bodies: the encoding and encoded length would lie) and the cookies (the handler has them; page
    /// script must not read them from headers). Repeated fields are joined with ", ".
    private func deliver(
        _ response: HTTPClientResponse, redirects: Int, url: URL, bodyResends: Int, crossedOrigins: Bool,
        _ sink: FetchEventSink
    ) async throws(FetchFailure) {
        let decoded = Self.isDecodedByClient(response.headers)
        var headers: [String: String] = [:]
        var order: [String] = []
        for (name, value) in response.headers {
            switch name.lowercased() {
            // The length goes as `expectedLength` and as the one Content-Length below (repeated fields would be
            // joined here), as URLSessionNetworkFetcher hands it over.
            case "transfer-encoding", "content-length", "set-cookie", "set-cookie2": continue
            case "content-encoding" where decoded: continue
            default: break
            }
            if let key = order.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                headers[key] = (headers[key] ?? "") + ", " + value
            } else {
                order.append(name)
                headers[name] = value
            }
        }
        let length = decoded ? nil : response.headers.first(name: "content-length").flatMap(Int.init)
        // The page reads it as it would from the server (the engine adds none for a custom scheme).
        if let length { headers["Content-Length"] = String(length) }
        var head = SchemeResponse(statusCode: Int(response.status.code), headers: headers, expectedLength: length)
        if redirects > 0 {
            head.redirection = SchemeResponse.Redirection(
                url: url, bodyResends: bodyResends, crossedOrigins: crossedOrigins)
        }
        sink.send(.response(head))
        do {
            for try await buffer in response.body {
                sink.send(.data(Data(buffer.readableBytesView)))
            }
        } catch {
            throw failure(error, url: url)
        }
        sink.send(.finished)
    }

    /// The same reading as NIOHTTPResponseDecompressor's: the first listed encoding, lower-cased.
    static func isDecodedByClient(_ headers: HTTPHeaders) -> Bool {
        guard let encoding = headers[canonicalForm: "content-encoding"].first?.lowercased() else { return false }
        return encoding == "gzip" || encoding == "deflate"
    }

    private func store(_ setCookies: [String], from url: URL) {
        guard !setCookies.isEmpty, let cookies else { return }
        cookies.storeSetCookies(setCookies, from: url, firstParty: nil)
    }

    private func failure(_ error: any Error, url: URL) -> FetchFailure {
        if Task.isCancelled || error is CancellationError {
            return FetchFailure(description: "\(url.absoluteString): cancelled")
        }
        // A streamed request body that failed (the page abandoned the upload) says so itself.
        if let proxyError = error as? ProxyError { return FetchFailure(description: proxyError.description) }
        return FetchFailure(description: "\(url.absoluteString): \(error)")
    }

}
