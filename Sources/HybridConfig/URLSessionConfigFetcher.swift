import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches the configuration with URLSession: no cookies, no cache (the store keeps its own verified copy), a
/// size limit and a timeout, since the server is not trusted until the signature is checked.
public struct URLSessionConfigFetcher: ConfigFetching {
    public let maxBytes: Int
    private let session: URLSession

    public init(maxBytes: Int = 1 << 20, timeout: TimeInterval = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
        self.maxBytes = maxBytes
    }

    public func fetch(_ url: URL) async throws(ConfigError) -> Data {
        let request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        let session = session
        let result: Result<Data, ConfigError> = await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(
                        returning: .failure(
                            .unreachable(url: url.absoluteString, reason: "\(error.localizedDescription)")))
                    return
                }
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                guard status == 200, let data else {
                    continuation.resume(
                        returning: .failure(.unreachable(url: url.absoluteString, reason: "HTTP status \(status)")))
                    return
                }
                continuation.resume(returning: .success(data))
            }.resume()
        }
        let data = try result.get()
        guard data.count <= maxBytes else { throw .tooLarge(limit: maxBytes) }
        return data
    }
}
