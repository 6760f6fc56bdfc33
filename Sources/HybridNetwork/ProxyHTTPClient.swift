import AsyncHTTPClient
import NIOCore

/// The process-wide HTTP client of the proxy. One client keeps one connection pool for all pages; it lives as
/// long as the process (like `HTTPClient.shared`), so no owner has to shut it down before it deinitialises.
/// The proxy follows redirects itself (each hop is vetted against the policy and the cookie jar), so the client
/// never does; it does not decompress either: the page receives the bytes and Content-Encoding the server sent.
enum ProxyHTTPClient {
    static let shared: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(30)),
            decompression: .disabled)
        configuration.httpVersion = .automatic
        // A refused connection fails at once instead of being retried until the connect timeout: the proxy tries
        // the host's next vetted address itself (see ConnectionTarget).
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}
