import Foundation
import Synchronization

/// What happened to a container's page, in order: the delegate's events as values, for `for await`.
public enum PageLoadEvent: Sendable, Equatable {
    case started(URL?)
    case committed(URL?)
    case finished(URL?)
    case failed(PageLoadFailure)
    /// The web content process ended (recovery, when on, follows with `recovered` or `recoveryGaveUp`).
    case webProcessTerminated(WebProcessTerminationReason)
    case recovered(RecoveryReport)
    case recoveryGaveUp(attempts: Int)
}

/// Why a page load failed, as far as the engine says.
public struct PageLoadFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The host or the page replaced the load (another load, a download): routine.
        case cancelled
        /// A custom-scheme handler refused or failed it (a package miss, a handler's error).
        case notServed
        /// The network failed it (no such host, refused, timed out, TLS).
        case network
        /// ``HybridContainer/loadAndWait(_:timeout:)`` gave up waiting.
        case timedOut
        /// The container closed first.
        case closed
    }

    public let kind: Kind
    public let url: URL?
    /// The engine's own words.
    public let message: String

    public init(kind: Kind, url: URL?, message: String) {
        self.kind = kind
        self.url = url
        self.message = message
    }

    /// Classifies the engine's message: scheme handlers fail with ``SchemeTaskError``'s wording.
    init(url: URL?, engineMessage: String) {
        let lowered = engineMessage.lowercased()
        let kind: Kind =
            if lowered.contains("cancel") || lowered.contains("interrupted") {
                .cancelled
            } else if ["failed: ", "not found: ", "forbidden: "].contains(where: engineMessage.hasPrefix) {
                .notServed
            } else {
                .network
            }
        self.init(kind: kind, url: url, message: engineMessage)
    }

    /// What to check, for the warning a failed load logs.
    public var advice: String {
        switch kind {
        case .cancelled: "another load replaced it"
        case .notServed:
            "a scheme handler refused or failed it: check that the package holds the file (hybrid inspect) and "
                + "that the URL is under the site's address; the log above names a package miss"
        case .network:
            "the network failed it: check the URL and the server; a site's pages load from its package only under "
                + "the site's address (HybridSite), anything else goes to the network"
        case .timedOut: "the page did not finish in time: a slow server or a resource that never ends"
        case .closed: "the container was closed while the page loaded"
        }
    }

    public var description: String {
        "page load \(kind.rawValue) (\(url?.absoluteString ?? "?")): \(message)"
    }
}

/// Fans a container's events out to every `for await` that listens, each with its own buffer.
final class PageLoadEventFanOut: Sendable {
    private let listeners = Mutex<[UUID: AsyncStream<PageLoadEvent>.Continuation]>([:])

    func stream() -> AsyncStream<PageLoadEvent> {
        let (stream, continuation) = AsyncStream<PageLoadEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        listeners.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.listeners.withLock { _ = $0.removeValue(forKey: id) } }
        return stream
    }

    func send(_ event: PageLoadEvent) {
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    /// Ends every listener's sequence (the container closed).
    func finish() {
        for continuation in listeners.withLock({ listeners in
            defer { listeners.removeAll() }
            return Array(listeners.values)
        }) { continuation.finish() }
    }
}
