import AsyncHTTPClient
import Foundation
import HybridKit
import NIOCore
import NIOHTTP1

/// What stops a proxied request: its running hop's client task.
typealias ProxyControl = CancelOnce<HTTPClient.Task<ProxyHopDelegate.Decision>>

/// One proxied request from the first hop to the last byte: vets every hop against the policy, asks the cookie
/// handler for each hop's Cookie header and hands it every Set-Cookie, follows redirects by the browser rules, and
/// streams the final body through the sink with the size limit applied as bytes arrive.
struct ProxyExchange: Sendable {
    let request: ProxiedRequest
    let policy: ProxyPolicy
    let cookies: (any HTTPCookieHandling)?
    let resolver: any HostResolving
    let client: HTTPClient
    /// Where the request's steps run (hops' answers may arrive on another of the client's loops).
    let loop: any EventLoop
    /// Stops whichever hop is running when the page or the timeout ends the request, and any hop after it.
    let control = ProxyControl { $0.cancel() }

    /// Response headers the page never sees: cookies belong to the jar, the rest describe the connection the
    /// proxy had, not the response (the body arrives de-chunked).
    static let hiddenResponseHeaders: Set<String> = [
        "set-cookie", "set-cookie2", "connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
        "proxy-authenticate", "proxy-connection",
    ]

    /// Runs the request on its loop, from the first hop to the sink's terminal event; `ended` runs once it is
    /// over (however it ended).
    func run(_ sink: ProxyEventSink, ended: @escaping @Sendable () -> Void) {
        let hop: ProxyHop
        do {
            hop = try ProxyHop.first(request, policy: policy)
        } catch {
            sink.send(.failed(error))
            return ended()
        }
        // A body still arriving travels beside the hops (they carry bytes in hand); it goes wherever a hop would
        // carry the body, and is dropped where a redirect drops it.
        let streamed = hop.method == "GET" || hop.method == "HEAD" ? nil : request.streamedBody
        step(Progress(hop: hop, streamed: streamed), sink: sink, ended: ended)
    }

    /// Where a redirect chain stands.
    private struct Progress: Sendable {
        var hop: ProxyHop
        var streamed: (any RequestBodySource)?
        var redirects = 0
        var bodyResends = 0

        func following(_ next: ProxyHop) -> Progress {
            var progress = self
            progress.redirects += 1
            // The rule turns the request into a GET exactly when it drops the body.
            if next.method == "GET" && hop.method != "GET" { progress.streamed = nil }
            if next.body != nil || progress.streamed != nil { progress.bodyResends += 1 }
            progress.hop = next
            return progress
        }
    }

    /// Vets and sends one hop, then follows its redirect or ends. Each step runs on the request's loop, in
    /// callbacks rather than a task: a task's start waits for a thread of the shared pool, which on a busy
    /// two-core device held a hooked POST up by milliseconds.
    private func step(_ progress: Progress, sink: ProxyEventSink, ended: @escaping @Sendable () -> Void) {
        let hop = progress.hop
        let body = progress.streamed.map(ProxyBody.stream) ?? hop.body.map(ProxyBody.data)
        policy.vet(hop.url, resolver: resolver, on: loop).flatMap { addresses in
            send(
                hop, body: body, to: ConnectionTarget.targets(for: hop.url, vettedAddresses: addresses)[...],
                sink: sink
            ) { head throws(ProxyError) in
                try decide(head, progress: progress, sink: sink)
            }
        }.whenComplete { result in
            switch result {
            case .success(.follow(let next)):
                step(progress.following(next), sink: sink, ended: ended)
                return
            case .success:
                break
            case .failure(let error):
                sink.send(.failed(mapped(error, url: hop.url)))
            }
            ended()
        }
    }

    /// What a hop's response head means, decided on the client's event loop as it arrives: a redirect to follow
    /// (its Set-Cookie stored, the next hop made by the browser rules), or the page's answer, whose head goes to the
    /// sink at once.
    private func decide(
        _ response: HTTPResponseHead, progress: Progress, sink: ProxyEventSink
    ) throws(ProxyError) -> ProxyHopDelegate.Decision {
        let (hop, redirects) = (progress.hop, progress.redirects)
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
                guard redirects < policy.redirectLimit else { throw .tooManyRedirects(limit: policy.redirectLimit) }
                do throws(RedirectRefusal) {
                    return .follow(try RedirectRule.next(after: hop, status: status, location: location))
                } catch {
                    throw .redirectRefused(error.reason)
                }
            }
        }
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
            statusCode: status, reasonPhrase: response.status.reasonPhrase, headers: headers, url: hop.url,
            redirected: redirects > 0, bodyResends: progress.bodyResends)
        return sink.send(.response(head)) ? .deliver(limit: limit) : .stop
    }

    /// Sends one hop on the client's delegate API, on the request's loop: the body is written as its bytes arrive
    /// and the answer goes to the sink as it arrives (``ProxyHopDelegate``), so nothing sits between the page's
    /// connection and upstream. Completes once the hop's response is read. A target whose connection never opened
    /// is followed by the next (nothing was sent on it).
    private func send(
        _ hop: ProxyHop, body: ProxyBody?, to targets: ArraySlice<ConnectionTarget>, sink: ProxyEventSink,
        decide: @escaping @Sendable (HTTPResponseHead) throws(ProxyError) -> ProxyHopDelegate.Decision
    ) -> EventLoopFuture<ProxyHopDelegate.Decision> {
        guard let target = targets.first else { return loop.makeFailedFuture(CancellationError()) }
        var headers = requestHeaders(for: hop)
        if let host = target.hostHeader { headers.replaceOrAdd(name: "Host", value: host) }
        let sendsBody = body != nil || (hop.method != "GET" && hop.method != "HEAD")
        let outgoing: HTTPClient.Request
        do {
            outgoing = try HTTPClient.Request(
                url: target.url.absoluteString, method: HTTPMethod(rawValue: hop.method), headers: headers,
                body: sendsBody ? body?.writtenBody(on: loop) ?? .byteBuffer(ByteBuffer()) : nil)
        } catch {
            return loop.makeFailedFuture(error)
        }
        guard !control.isCancelled else { return loop.makeFailedFuture(CancellationError()) }
        let started = client.execute(
            request: outgoing, delegate: ProxyHopDelegate(sink: sink, decide: decide), eventLoop: .indifferent,
            deadline: .now() + TimeAmount(policy.timeout))
        // Cancelled while the hop started: `hold` stopped it, and its failure ends the request as cancelled.
        control.hold(started)
        return started.futureResult.hop(to: loop).flatMapError { error in
            guard Self.isConnectFailure(error), !control.isCancelled, targets.count > 1 else {
                return loop.makeFailedFuture(error)
            }
            return send(hop, body: body, to: targets.dropFirst(), sink: sink, decide: decide)
        }
    }

    /// The hop's headers as the proxy sends them: the page's (after the safety rules), the proxy's User-Agent, the
    /// page's origin where browsers send it and the jar's cookies where the credentials mode lets them go.
    private func requestHeaders(for hop: ProxyHop) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for header in hop.headers { headers.add(name: header.name, value: header.value) }
        headers.replaceOrAdd(name: "User-Agent", value: policy.userAgent)
        if !headers.contains(name: "accept") { headers.add(name: "Accept", value: "*/*") }
        if let origin = originHeader(for: hop) { headers.add(name: "Origin", value: origin) }
        if includesCredentials(hop.url),
            let cookie = cookies?.cookieHeader(
                for: hop.url, firstParty: request.firstParty, method: hop.method, includeHTTPOnly: true),
            !cookie.isEmpty
        {
            headers.add(name: "Cookie", value: cookie)
        }
        return headers
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
        if control.isCancelled || error is CancellationError { return .cancelled }
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
