import AsyncHTTPClient
import NIOCore

/// The process-wide HTTP client of the proxy. One client keeps one connection pool for all pages; it lives as
/// long as the process (like `HTTPClient.shared`), so no owner has to shut it down before it deinitialises.
/// The proxy follows redirects itself (each hop is vetted against the policy and the cookie jar), so the client
/// never does. It asks for gzip/deflate and decodes them (a decoded chunk may be at most 100× its compressed size, so
/// a small bomb cannot blow up memory before the proxy's response limit, counted on decoded bytes, cuts it off).
enum ProxyHTTPClient {
    static let shared: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(30)),
            decompression: .enabled(limit: .ratio(100)))
        configuration.httpVersion = .automatic
        // A refused connection fails at once instead of being retried until the connect timeout: the proxy tries
        // the host's next vetted address itself (see ConnectionTarget).
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}
