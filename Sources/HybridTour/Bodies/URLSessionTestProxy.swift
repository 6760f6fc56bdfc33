import Foundation
import HybridCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A bare ``RequestProxying`` over URLSession with none of the native proxy's safety rules (hosts, address
/// ranges, header filtering, limits): for exercising the hooks' full-proxy path against a loopback server when the
/// real `NativeProxy` is not linked in. Never use it for pages.
public final class URLSessionTestProxy: RequestProxying {
    private let session: URLSession

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    // URLSession does not expose the status line; these are the phrases servers send.
    static let reasons = [
        200: "OK", 201: "Created", 204: "No Content", 301: "Moved Permanently", 302: "Found", 303: "See Other",
        304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
        401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error", 502: "Bad Gateway",
        503: "Service Unavailable",
    ]

    struct Cancel: ProxyCancelling {
        let task: URLSessionDataTask
        func cancel() { task.cancel() }
    }

    public func perform(_ request: ProxiedRequest, events: @escaping @Sendable (ProxyEvent) -> Void)
        -> any ProxyCancelling
    {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers where !["host", "content-length", "cookie"].contains(name.lowercased()) {
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = request.body
        let original = request.url
        let task = session.dataTask(with: urlRequest) { data, response, error in
            if let error {
                events(.failed((error as? URLError)?.code == .cancelled ? .cancelled : .network("\(error)")))
                return
            }
            guard let http = response as? HTTPURLResponse else { return events(.failed(.network("not HTTP"))) }
            let headers = http.allHeaderFields.compactMap { key, value -> (name: String, value: String)? in
                guard let name = key as? String, let value = value as? String else { return nil }
                return (name, value)
            }
            let url = http.url ?? original
            events(
                .response(
                    ProxiedResponseHead(
                        statusCode: http.statusCode,
                        reasonPhrase: Self.reasons[http.statusCode] ?? "",
                        headers: headers, url: url, redirected: url != original)))
            if let data, !data.isEmpty { events(.data(data)) }
            events(.finished)
        }
        task.resume()
        return Cancel(task: task)
    }
}
