import AsyncHTTPClient
import Foundation
import HybridKit
import NIOCore
import NIOHTTP1

/// One proxied request from the first hop to the last byte: vets every hop against the policy, asks the cookie
/// handler for each hop's Cookie header and hands it every Set-Cookie, follows redirects by the browser rules, and
/// streams the final body through the sink with the size limit applied as bytes arrive.
struct ProxyExchange: Sendable {
    let request: ProxiedRequest
    let policy: ProxyPolicy
    let cookies: (any HTTPCookieHandling)?
    let resolver: any HostResolving
    let client: HTTPClient

    /// Response headers the page never sees: cookies belong to the jar, the rest describe the connection the
    /// proxy had, not the response (the body arrives de-chunked).
    static let hiddenResponseHeaders: Set<String> = [
        "set-cookie", "set-cookie2", "connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
        "proxy-authenticate", "proxy-connection",
    ]

    func run(_ sink: ProxyEventSink) async {
        do {
            try await perform(sink)
        } catch {
            sink.send(.failed(Task.isCancelled ? .cancelled : error))
        }
    }

    private func perform(_ sink: ProxyEventSink) async throws(ProxyError) {
        var hop = try ProxyHop.first(request, policy: policy)
        // A body still arriving travels beside the hops (they carry bytes in hand); it goes wherever a hop would
        // carry the body, and is dropped where a redirect drops it.
        var streamed = hop.method == "GET" || hop.method == "HEAD" ? nil : request.streamedBody
        var redirects = 0
        var bodyResends = 0
        while true {
            let addresses = try await policy.vet(hop.url, resolver: resolver)
            let body = streamed.map(ProxyBody.stream) ?? hop.body.map(ProxyBody.data)
            let response = try await send(
                hop, body: body, to: ConnectionTarget.targets(for: hop.url, vettedAddresses: addresses))
            let status = Int(response.status.code)
            store(response.headers["set-cookie"], from: hop.url)
            if RedirectRule.redirectStatuses.contains(status), let location = response.headers.first(name: "location") {
                switch request.redirect {
                case .error:
                    throw .redirectRefused(
                        "\(hop.url.absoluteString) answered \(status) and the request's redirect mode is 'error'")
                case .manual:
                    break
                case .follow:
                    guard redirects < policy.redirectLimit else {
                        throw .tooManyRedirects(limit: policy.redirectLimit)
                    }
                    let next: ProxyHop
                    do throws(RedirectRefusal) {
                        next = try RedirectRule.next(after: hop, status: status, location: location)
                    } catch {
                        throw .redirectRefused(error.reason)
                    }
                    await response.body.drain()
                    redirects += 1
                    // The rule turns the request into a GET exactly when it drops the body.
                    if next.method == "GET" && hop.method != "GET" { streamed = nil }
                    if next.body != nil || streamed != nil { bodyResends += 1 }
                    hop = next
                    continue
                }
            }
            try await deliver(response, url: hop.url, redirected: redirects > 0, bodyResends: bodyResends, to: sink)
            return
        }
    }

    private func send(
        _ hop: ProxyHop, body: ProxyBody?, to targets: [ConnectionTarget]
    ) async throws(ProxyError) -> HTTPClientResponse {
        var outgoing = HTTPClientRequest(url: hop.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: hop.method)
        for header in hop.headers { outgoing.headers.add(name: header.name, value: header.value) }
        outgoing.headers.replaceOrAdd(name: "User-Agent", value: policy.userAgent)
        if !outgoing.headers.contains(name: "accept") { outgoing.headers.add(name: "Accept", value: "*/*") }
        if let origin = originHeader(for: hop) { outgoing.headers.add(name: "Origin", value: origin) }
        if includesCredentials(hop.url),
            let cookie = cookies?.cookieHeader(
                for: hop.url, firstParty: request.firstParty, method: hop.method, includeHTTPOnly: true),
            !cookie.isEmpty
        {
            outgoing.headers.add(name: "Cookie", value: cookie)
        }
        if let body {
            outgoing.body = body.clientBody
        } else if hop.method != "GET" && hop.method != "HEAD" {
            outgoing.body = .bytes(ByteBuffer())
        }
        var lastError: (any Error)?
        for target in targets {
            outgoing.url = target.url.absoluteString
            if let host = target.hostHeader { outgoing.headers.replaceOrAdd(name: "Host", value: host) }
            do {
                return try await client.execute(outgoing, timeout: TimeAmount(policy.timeout))
            } catch {
                lastError = error
                // Only a connection that never opened is retried at the next address: nothing was sent on it.
                guard Self.isConnectFailure(error), !Task.isCancelled else { break }
            }
        }
        throw mapped(lastError ?? CancellationError(), url: hop.url)
    }

    /// Whether the client decoded the body (it does for gzip and deflate, the encodings it asks for).
    static func isDecodedByClient(_ headers: HTTPHeaders) -> Bool {
        // The same reading as NIOHTTPResponseDecompressor's: the first listed encoding, lower-cased.
        guard let encoding = headers[canonicalForm: "content-encoding"].first?.lowercased() else { return false }
        return encoding == "gzip" || encoding == "deflate"
    }

    static func isConnectFailure(_ error: any Error) -> Bool {
        if let clientError = error as? HTTPClientError, clientError == .connectTimeout { return true }
        if let ioError = error as? IOError {
            return [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL].contains(ioError.errnoCode)
        }
        if let channelError = error as? ChannelError, case .connectTimeout = channelError { return true }
        // NIOPosix's error for a failed connect (all attempts refused): the module is not a direct dependency.
        return String(describing: type(of: error)) == "NIOConnectionError"
    }

    private func deliver(
        _ response: HTTPClientResponse, url: URL, redirected: Bool, bodyResends: Int, to sink: ProxyEventSink
    ) async throws(ProxyError) {
        let limit = policy.maxResponseBodyBytes
        let decoded = Self.isDecodedByClient(response.headers)
        if !decoded, let declared = response.headers.first(name: "content-length").flatMap(Int.init), declared > limit {
            throw .responseTooLarge(limit: limit)
        }
        let headers = response.headers
            .filter { !Self.hiddenResponseHeaders.contains($0.name.lowercased()) }
            // The page gets decoded bytes: the encoding and the encoded length would make the engine decode again
            // or cut the body short.
            .filter { !decoded || !["content-encoding", "content-length"].contains($0.name.lowercased()) }
            .map { (name: $0.name, value: $0.value) }
        let head = ProxiedResponseHead(
            statusCode: Int(response.status.code), reasonPhrase: response.status.reasonPhrase, headers: headers,
            url: url, redirected: redirected, bodyResends: bodyResends)
        guard sink.send(.response(head)) else { return }
        var received = 0
        do {
            for try await buffer in response.body {
                received += buffer.readableBytes
                guard received <= limit else { throw ProxyError.responseTooLarge(limit: limit) }
                let chunk = buffer.withUnsafeReadableBytes { Data($0) }
                guard sink.send(.data(chunk)) else { return }
            }
        } catch let error as ProxyError {
            throw error
        } catch {
            throw mapped(error, url: url)
        }
        sink.send(.finished)
    }

    /// Fetch's credentials mode: cookies go (and Set-Cookie is stored) for `include`, for `same-origin` only while
    /// the hop is same-origin with the page, never for `omit`.
    private func includesCredentials(_ url: URL) -> Bool {
        switch request.credentials {
        case .omit: false
        case .include: true
        case .sameOrigin: request.firstParty.map { WebOrigin.same($0, url) } ?? false
        }
    }

    private func store(_ setCookies: [String], from url: URL) {
        guard !setCookies.isEmpty, let cookies, includesCredentials(url) else { return }
        cookies.storeSetCookies(setCookies, from: url, firstParty: request.firstParty)
    }

    /// The page's origin, as browsers send it on cross-origin and on unsafe requests; "null" once a redirect
    /// crossed origins (the chain's origin is then tainted).
    private func originHeader(for hop: ProxyHop) -> String? {
        guard let firstParty = request.firstParty, let origin = WebOrigin(firstParty) else { return nil }
        let unsafeMethod = hop.method != "GET" && hop.method != "HEAD"
        guard unsafeMethod || !WebOrigin.same(firstParty, hop.url) else { return nil }
        return hop.crossedOrigins ? "null" : origin.description
    }

    private func mapped(_ error: any Error, url: URL) -> ProxyError {
        if Task.isCancelled || error is CancellationError { return .cancelled }
        // A streamed request body that failed says so itself.
        if let proxyError = error as? ProxyError { return proxyError }
        let host = url.host(percentEncoded: false) ?? url.absoluteString
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .connectTimeout: return .network("could not connect to \(host) in time; is it reachable?")
            case .deadlineExceeded, .readTimeout:
                return .network("\(host) did not answer in time")
            case .remoteConnectionClosed:
                return .network("\(host) closed the connection before the response was complete")
            default: break
            }
        }
        return .network("\(host): \(error)")
    }
}
