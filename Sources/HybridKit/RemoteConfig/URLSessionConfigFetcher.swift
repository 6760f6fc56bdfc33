import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches the configuration with URLSession: no cookies, no cache (the store keeps its own verified copy), a
/// timeout, and a size limit enforced while the bytes arrive, since the server is not trusted until the signature
/// is checked.
public struct URLSessionConfigFetcher: ConfigFetching {
    public let maxBytes: Int
    public let timeout: TimeInterval

    public init(maxBytes: Int = 1 << 20, timeout: TimeInterval = 30) {
        self.maxBytes = maxBytes
        self.timeout = timeout
    }

    public func fetch(_ url: URL) async throws(ConfigError) -> Data {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        let maxBytes = maxBytes
        let result: Result<Data, ConfigError> = await withCheckedContinuation { continuation in
            let collector = BoundedCollector(url: url, maxBytes: maxBytes) { continuation.resume(returning: $0) }
            // One session per fetch (fetches are rare): its delegate is this fetch's collector, released when the
            // session is invalidated after the task ends.
            let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
            session.dataTask(with: URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)).resume()
            session.finishTasksAndInvalidate()
        }
        return try result.get()
    }
}

/// Collects one response up to a limit and reports exactly once.
private final class BoundedCollector: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var data = Data()
        var status = 0
        var result: Result<Data, ConfigError>?
        var reported = false
    }

    private let url: URL
    private let maxBytes: Int
    private let report: @Sendable (Result<Data, ConfigError>) -> Void
    private let state = Mutex(State())

    init(url: URL, maxBytes: Int, report: @escaping @Sendable (Result<Data, ConfigError>) -> Void) {
        self.url = url
        self.maxBytes = maxBytes
        self.report = report
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let tooLarge = response.expectedContentLength > Int64(maxBytes)
        state.withLock { state in
            state.status = status
            if tooLarge { state.result = .failure(.tooLarge(limit: maxBytes)) }
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let exceeded = state.withLock { state -> Bool in
            guard state.result == nil else { return false }
            state.data.append(data)
            guard state.data.count > maxBytes else { return false }
            state.result = .failure(.tooLarge(limit: maxBytes))
            state.data = Data()
            return true
        }
        if exceeded { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let result = state.withLock { state -> Result<Data, ConfigError>? in
            guard !state.reported else { return nil }
            state.reported = true
            if let result = state.result { return result }
            if let error {
                return .failure(.unreachable(url: url.absoluteString, reason: error.localizedDescription))
            }
            guard state.status == 200 else {
                return .failure(.unreachable(url: url.absoluteString, reason: "HTTP status \(state.status)"))
            }
            return .success(state.data)
        }
        if let result { report(result) }
    }
}
