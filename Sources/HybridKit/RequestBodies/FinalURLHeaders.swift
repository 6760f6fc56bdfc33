import Foundation

/// The response headers that tell the hooks which URL finally answered a request native code performed or
/// re-attached a body to (the engine only knows the URL it asked for). The hooks read them for `responseURL`,
/// `Response.url`, `Response.redirected` and the upload progress the engine fires for a re-sent body, and hide
/// every `X-Hybrid-*` header from the page.
enum FinalURLHeaders {
    static let finalURL = "X-Hybrid-Final-URL"
    static let redirected = "X-Hybrid-Redirected"
    static let bodyResends = "X-Hybrid-Body-Resends"

    static func headers(for url: String, redirected: Bool, bodyResends: Int = 0) -> [String: String] {
        var headers = [finalURL: url.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? url]
        if redirected { headers[Self.redirected] = "1" }
        if bodyResends > 0 { headers[Self.bodyResends] = String(bodyResends) }
        return headers
    }
}
