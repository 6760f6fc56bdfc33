#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK

extension GTKWebView {
    /// The header fields of a response, in order.
    static func headers(of response: UnsafeMutablePointer<WebKitURIResponse>) -> [(name: String, value: String)] {
        guard let headers = webkit_uri_response_get_http_headers(response) else { return [] }
        let collected = HeaderList()
        let box = Unmanaged.passRetained(collected)
        defer { box.release() }
        soup_message_headers_foreach(
            headers,
            { name, value, data in
                guard let name, let value, let data else { return }
                Unmanaged<HeaderList>.fromOpaque(data).takeUnretainedValue().fields.append(
                    (String(cString: name), String(cString: value)))
            }, box.toOpaque())
        return collected.fields
    }
}

private final class HeaderList {
    var fields: [(name: String, value: String)] = []
}
#endif
