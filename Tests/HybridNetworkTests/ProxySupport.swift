import Foundation
import HybridKit
import HybridNetwork
import Synchronization
import Testing

/// Everything one proxied request delivered, in order.
struct ProxyOutcome: Sendable {
    var events: [ProxyEvent] = []

    var head: ProxiedResponseHead? {
        for case .response(let head) in events { return head }
        return nil
    }
    var body: Data { events.reduce(into: Data()) { if case .data(let chunk) = $1 { $0.append(chunk) } } }
    var error: ProxyError? {
        for case .failed(let error) in events { return error }
        return nil
    }
    var finished: Bool { events.contains { if case .finished = $0 { true } else { false } } }
    var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The test server's /echo answer.
    var echo: Echo? { try? JSONDecoder().decode(Echo.self, from: body) }
}

struct Echo: Decodable {
    let method: String
    let headers: [[String]]
    let body: String

    func values(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }
    var bodyData: Data { Data(base64Encoded: body) ?? Data() }
}

/// Collects a request's events; `ended()` returns once the terminal event arrived.
final class EventCollector: Sendable {
    private let state = Mutex(ProxyOutcome())
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let onData: @Sendable (Data) -> Void

    init(onData: @escaping @Sendable (Data) -> Void = { _ in }) {
        (stream, continuation) = AsyncStream<Void>.makeStream()
        self.onData = onData
    }

    var outcome: ProxyOutcome { state.withLock { $0 } }

    func record(_ event: ProxyEvent) {
        state.withLock { $0.events.append(event) }
        switch event {
        case .finished, .failed: continuation.finish()
        case .data(let data): onData(data)
        case .response: break
        }
    }

    func ended() async -> ProxyOutcome {
        for await _ in stream {}
        return outcome
    }
}

extension NativeProxy {
    /// Performs `request` and waits for its end.
    func run(_ request: ProxiedRequest) async -> ProxyOutcome {
        let collector = EventCollector()
        _ = perform(request) { collector.record($0) }
        return await collector.ended()
    }
}

/// A policy for the loopback test server: both names of the machine allowed, loopback allowed.
func loopbackPolicy(
    maxRequestBodyBytes: Int = 10 << 20, maxResponseBodyBytes: Int = 50 << 20, timeout: Duration = .seconds(20)
) -> ProxyPolicy {
    ProxyPolicy(
        allowedHosts: ["127.0.0.1", "localhost"], allowedAddressKinds: [.loopback],
        maxRequestBodyBytes: maxRequestBodyBytes, maxResponseBodyBytes: maxResponseBodyBytes, timeout: timeout,
        userAgent: "HybridKitTest/1")
}

/// A cookie handler that keeps `name=value` per host (the jar's domain rules reduced to exact hosts) and records
/// every call, so tests see which hops asked and what was stored.
final class RecordingCookieJar: HTTPCookieHandling {
    struct Stored: Sendable {
        let values: [String]
        let url: URL
    }

    private let state = Mutex<(cookies: [String: [String]], stored: [Stored], asked: [URL])>(([:], [], []))

    init(preset: [String: [String]] = [:]) { state.withLock { $0.cookies = preset } }

    var stored: [Stored] { state.withLock { $0.stored } }
    var asked: [URL] { state.withLock { $0.asked } }

    func cookieHeader(for url: URL, firstParty: URL?, method: String, includeHTTPOnly: Bool) -> String? {
        state.withLock { state in
            state.asked.append(url)
            let cookies = state.cookies[url.host(percentEncoded: false) ?? ""] ?? []
            return cookies.isEmpty ? nil : cookies.joined(separator: "; ")
        }
    }

    func storeSetCookies(_ values: [String], from url: URL, firstParty: URL?) {
        state.withLock { state in
            state.stored.append(Stored(values: values, url: url))
            let host = url.host(percentEncoded: false) ?? ""
            for value in values {
                let pair = value.split(separator: ";").first.map(String.init) ?? value
                state.cookies[host, default: []].append(pair.trimmingCharacters(in: .whitespaces))
            }
        }
    }
}

/// A resolver answering fixed addresses, for names that must resolve to private ranges without DNS.
struct FixedResolver: HostResolving {
    let answers: [String: [IPAddress]]
    func addresses(of host: String) async throws(ProxyError) -> [IPAddress] {
        guard let addresses = answers[host] else { throw .network("no test answer for \(host)") }
        return addresses
    }
}
