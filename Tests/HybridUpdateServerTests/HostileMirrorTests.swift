import Foundation
import HybridKit
import HybridPackages
import Synchronization
import Testing

/// The update clients behind a mirror that lies about pace and size (docs/release-channel.md, "Threat model: the
/// update client"). Each call runs under a generous deadline (20 s) that proves it ends: where a client trusts the
/// mirror it hangs instead, the deadline records that, and stopping the mirror frees it.
@Suite("Update client behind a hostile mirror", .serialized)
struct HostileMirrorTests {
    static let id = ReleaseTreeFixture.id
    static let indexPath = "/channels/production/\(id).json"
    static let huge = 256 << 20
    /// 64 KiB a millisecond (~64 MB/s), a fast real link. Faster than the client's thread can be scheduled on a
    /// loaded loopback machine, URLSession on Linux queues what it read without backpressure, which would measure
    /// the machine's load rather than the client (see the threat model's note on it).
    static let pace = Duration.milliseconds(1)

    enum IndexAbuse: String, CaseIterable, CustomTestStringConvertible {
        /// 256 MiB with `Content-Length` saying so.
        case declaredHuge
        /// 256 MiB with no length: the body ends when the connection does.
        case undeclaredHuge
        /// Never ends, at about 13 MB/s.
        case endless

        var testDescription: String { rawValue }

        var reply: HostileMirror.Reply {
            switch self {
            case .declaredHuge:
                .body(head: ["HTTP/1.1 200 OK", "Content-Length: \(huge)"], chunk: 65_536, pause: pace, total: huge)
            case .undeclaredHuge:
                .body(head: ["HTTP/1.1 200 OK", "Connection: close"], chunk: 65_536, pause: pace, total: huge)
            case .endless:
                .body(head: ["HTTP/1.1 200 OK", "Connection: close"], chunk: 65_536, pause: .milliseconds(5))
            }
        }
    }

    @Test(arguments: IndexAbuse.allCases)
    func indexOverTheLimitIsStoppedWhileItArrives(_ abuse: IndexAbuse) async throws {
        let fixture = try ReleaseTreeFixture()
        let mirror = try HostileMirror { _ in abuse.reply }
        defer { mirror.stop() }
        let client = try fixture.client(base: mirror.baseURL)
        let peak = peakResidentBytes()

        let outcome = await finishing(within: .seconds(20), or: mirror) { try await client.currentIndex(for: Self.id) }

        let error = try outcome.error(as: HTTPUpdateClientError.self)
        #expect(
            error
                == .bodyTooLarge(
                    url: client.indexURL(for: Self.id).absoluteString, limit: ReleaseChannelReader.maximumIndexBytes))
        // Nothing near the body's size was held (reading it whole takes 256 MiB and more).
        #expect(peakResidentBytes() - peak < 100 << 20)
        #expect(mirror.sent(to: Self.indexPath) < Self.huge)
        #expect(client.reader.acceptedSequence(for: Self.id) == 0)
    }

    @Test func releaseDocumentOverTheLimitIsStoppedWhileItArrives() async throws {
        let mirror = try HostileMirror { _ in IndexAbuse.endless.reply }
        defer { mirror.stop() }
        let client = HTTPUpdateClient(baseURL: mirror.baseURL)
        let peak = peakResidentBytes()

        let outcome = await finishing(within: .seconds(20), or: mirror) { try await client.latestRelease(for: Self.id) }

        let error = try outcome.error(as: HTTPUpdateClientError.self)
        guard case .bodyTooLarge(_, let limit) = error else { throw error }
        #expect(limit == UpdateTransferLimits().maximumDocumentBytes)
        #expect(peakResidentBytes() - peak < 100 << 20)
    }

    enum RangeAbuse: String, CaseIterable, CustomTestStringConvertible {
        /// A 206 for the asked 16 KiB whose `Content-Length` and body are 256 MiB.
        case longerThanItsContentRange
        /// A 206 for the asked 16 KiB whose body never ends.
        case endlessPartial
        /// A 206 declaring (and sending) 256 MiB from the asked start.
        case moreThanAsked
        /// A 200 (Range ignored) whose body never ends: the asked slice is taken and the rest not read.
        case endlessWholeFile
        /// A 206 with the right `Content-Length` followed by 256 MiB more on the connection.
        case longerThanItsContentLength

        var testDescription: String { rawValue }

        var reply: HostileMirror.Reply {
            let partial = "HTTP/1.1 206 Partial Content"
            switch self {
            case .longerThanItsContentRange:
                return .body(
                    head: [partial, "Content-Range: bytes 0-16383/\(huge)", "Content-Length: \(huge)"], chunk: 65_536,
                    pause: pace, total: huge)
            case .endlessPartial:
                return .body(
                    head: [partial, "Content-Range: bytes 0-16383/\(huge)", "Connection: close"], chunk: 65_536,
                    pause: .milliseconds(5))
            case .moreThanAsked:
                return .body(
                    head: [partial, "Content-Range: bytes 0-\(huge - 1)/\(huge)", "Content-Length: \(huge)"],
                    chunk: 65_536, pause: pace, total: huge)
            case .endlessWholeFile:
                return .body(head: ["HTTP/1.1 200 OK", "Connection: close"], chunk: 65_536, pause: .milliseconds(5))
            case .longerThanItsContentLength:
                return .body(
                    head: [partial, "Content-Range: bytes 0-16383/\(huge)", "Content-Length: 16384"], chunk: 65_536,
                    pause: pace, total: huge)
            }
        }

        /// The bytes the client returns, or the error it throws.
        func expected(url: String) -> Result<Int, HTTPUpdateClientError> {
            switch self {
            case .longerThanItsContentRange, .endlessPartial: .failure(.bodyTooLarge(url: url, limit: 16_384))
            case .moreThanAsked:
                .failure(.wrongRange(url: url, asked: "bytes=0-16383", got: "bytes 0-\(huge - 1)/\(huge)"))
            case .endlessWholeFile, .longerThanItsContentLength: .success(16_384)
            }
        }
    }

    @Test(arguments: RangeAbuse.allCases)
    func rangeAnswerIsReadNoFurtherThanAskedOrDeclared(_ abuse: RangeAbuse) async throws {
        let mirror = try HostileMirror { _ in abuse.reply }
        defer { mirror.stop() }
        let location = mirror.baseURL.appendingPathComponent("files/package.zip").absoluteString
        let artifact = PackageArtifact(
            location: location, size: Int64(Self.huge), sha256: String(repeating: "0", count: 64))
        let client = HTTPUpdateClient(baseURL: mirror.baseURL)
        let peak = peakResidentBytes()

        let outcome = await finishing(within: .seconds(20), or: mirror) {
            try await client.fetch(artifact, range: 0..<16_384)
        }

        switch abuse.expected(url: location) {
        case .success(let count):
            let bytes = try outcome.value()
            #expect(bytes.count == count && bytes.allSatisfy { $0 == UInt8(ascii: "x") })
        case .failure(let expected):
            #expect(try outcome.error(as: HTTPUpdateClientError.self) == expected)
        }
        #expect(peakResidentBytes() - peak < 100 << 20)
        #expect(mirror.sent(to: "/files/package.zip") < Self.huge)
    }

    /// Headers at once, then one byte a second: URLSession's idle timeout never fires.
    static let drip = HostileMirror.Reply.body(
        head: ["HTTP/1.1 200 OK", "Content-Length: 100000"], chunk: 1, pause: .seconds(1), total: 100_000)

    @Test(arguments: [
        UpdateTransferLimits(requestTimeout: .seconds(2), checkTimeout: .seconds(60)),
        UpdateTransferLimits(requestTimeout: .seconds(60), checkTimeout: .seconds(2)),
    ])
    func drippedIndexFailsAtTheDeadline(_ limits: UpdateTransferLimits) async throws {
        let fixture = try ReleaseTreeFixture()
        let mirror = try HostileMirror { _ in Self.drip }
        defer { mirror.stop() }
        let reader = try ReleaseChannelReader(
            storeRoot: fixture.url("store"),
            configuration: ReleaseChannelConfiguration(
                releaseKey: fixture.releaseKey.verificationKey,
                hostVersion: try ReleaseTreeFixture.version("1.0.0")))
        let client = ChannelUpdateClient(baseURL: mirror.baseURL, reader: reader, limits: limits)

        let outcome = await finishing(within: .seconds(20), or: mirror) { try await client.latestRelease(for: Self.id) }

        let error = try outcome.error(as: HTTPUpdateClientError.self)
        #expect(
            error
                == .timedOut(
                    url: client.indexURL(for: Self.id).absoluteString,
                    after: min(limits.requestTimeout, limits.checkTimeout)))
        #expect(reader.acceptedSequence(for: Self.id) == 0)
    }

    @Test func drippedDownloadFailsAndInstallsNothing() async throws {
        let fixture = try ReleaseTreeFixture()
        try await fixture.publish([try fixture.pack("1.0.0", blobSize: 50_000)])
        let mirror = try HostileMirror(upstreamPort: fixture.nginx.port) { path in
            // The index is the publisher's; every package range drips.
            path.hasPrefix("/files/")
                ? .body(
                    head: ["HTTP/1.1 206 Partial Content", "Content-Range: bytes 0-16383/*", "Content-Length: 16384"],
                    chunk: 1, pause: .seconds(1), total: 16_384)
                : .relay
        }
        defer { mirror.stop() }
        let store = try fixture.store()
        let reader = try ReleaseChannelReader(
            storeRoot: store.root,
            configuration: ReleaseChannelConfiguration(
                releaseKey: fixture.releaseKey.verificationKey,
                hostVersion: try ReleaseTreeFixture.version("1.0.0")))
        let client = ChannelUpdateClient(
            baseURL: mirror.baseURL, reader: reader, limits: UpdateTransferLimits(requestTimeout: .seconds(1)))
        let updater = fixture.updater(store, client: client, maxAttempts: 2)

        let outcome = await finishing(within: .seconds(20), or: mirror) { try await updater.update(Self.id) }

        let error = try outcome.error(as: DownloadError.self)
        guard case .transferFailed(_, let received, let reason) = error else { throw error }
        #expect(received == 0 && reason.contains("within 1.0 seconds"))
        #expect(store.activeVersion(Self.id) == nil)
        #expect(store.installedVersions(Self.id).isEmpty)
    }

    @Test func indexMissingAfterExpiryIsReportedNotUpToDate() async throws {
        let fixture = try ReleaseTreeFixture()
        try await fixture.publish([try fixture.pack("1.0.0")], ["--expires-in", "1"])
        let mirror = try HostileMirror(upstreamPort: fixture.nginx.port) { _ in .relay }
        defer { mirror.stop() }
        let clock = TestClock()
        let store = try fixture.store()
        let client = try fixture.client(base: mirror.baseURL, clock: clock)
        let updater = fixture.updater(store, client: client)
        let first = try await updater.update(Self.id)
        #expect(first == .updated(from: nil, to: try ReleaseTreeFixture.version("1.0.0"), viaDiff: false))

        // The mirror hides the index from now on. While the held index is valid that offers nothing new.
        mirror.answer { $0 == Self.indexPath ? .status(404) : .relay }
        #expect(try await updater.update(Self.id) == .upToDate(try ReleaseTreeFixture.version("1.0.0")))

        // Past its expiry the install must say it can no longer tell, and keeps serving what it has.
        clock.advance(2 * 3600)
        let checks: [@Sendable () async throws -> String] = [
            { "\(try await updater.update(Self.id))" },
            { "\(String(describing: try await client.latestRelease(for: Self.id)))" },
        ]
        for check in checks {
            do {
                let answer = try await check()
                Issue.record("a 404 after expiry was answered with \(answer)")
            } catch let error as ReleaseIndexError {
                guard case .notServedAfterExpiry(let source, let status, _, _) = error else { throw error }
                #expect(source == client.indexURL(for: Self.id).absoluteString && status == 404)
            }
        }
        #expect(store.activeVersion(Self.id) == (try ReleaseTreeFixture.version("1.0.0")))

        // The publisher re-signs and the mirror serves it again: updates go on.
        try await fixture.publish([try fixture.pack("2.0.0")], ["--expires-in", "24"])
        mirror.answer { _ in .relay }
        let next = try await updater.update(Self.id)
        #expect(
            next
                == .updated(
                    from: try ReleaseTreeFixture.version("1.0.0"), to: try ReleaseTreeFixture.version("2.0.0"),
                    viaDiff: true))
    }
}

/// How a call under a deadline ended.
enum Finishing<Value: Sendable>: Sendable {
    case finished(Result<Value, any Error>)
    /// Still running at the deadline: it trusted the server's pace or size.
    case hung

    func value() throws -> Value {
        guard case .finished(let result) = self else { throw DeadlineMissed() }
        return try result.get()
    }

    func error<E: Error>(as type: E.Type) throws -> E {
        guard case .finished(let result) = self else { throw DeadlineMissed() }
        switch result {
        case .success(let value): throw UnexpectedSuccess(description: "\(value)")
        case .failure(let error as E): return error
        case .failure(let error): throw error
        }
    }
}

struct DeadlineMissed: Error, CustomStringConvertible {
    var description: String { "the call was still running at its deadline: it trusts the server's pace or size" }
}

struct UnexpectedSuccess: Error, CustomStringConvertible {
    let description: String
}

/// Runs `work` for at most `limit`. Past it, says `.hung` at once without waiting for `work` (a client that trusts
/// the server may never return), cuts the mirror's connections and cancels `work`.
func finishing<Value: Sendable>(
    within limit: Duration, or mirror: HostileMirror, _ work: @escaping @Sendable () async throws -> Value
) async -> Finishing<Value> {
    let report = Mutex<CheckedContinuation<Finishing<Value>, Never>?>(nil)
    let settle: @Sendable (Finishing<Value>) -> Bool = { outcome in
        guard let continuation = report.withLock({ $0.take() }) else { return false }
        continuation.resume(returning: outcome)
        return true
    }
    return await withCheckedContinuation { continuation in
        report.withLock { $0 = continuation }
        let running = Task {
            do { _ = settle(.finished(.success(try await work()))) } catch { _ = settle(.finished(.failure(error))) }
        }
        Task {
            try? await Task.sleep(for: limit)
            guard settle(.hung) else { return }
            mirror.stop()
            running.cancel()
        }
    }
}

/// The process's peak resident set (VmHWM), in bytes.
func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes * 1_024
}
