import AsyncHTTPClient

extension HTTPClientResponse.Body {
    /// Reads a redirect's body away (a little of it: it is never shown), then lets go of the rest, so the
    /// connection is not left with an unread response.
    func drain() async {
        var seen = 0
        do {
            for try await buffer in self {
                seen += buffer.readableBytes
                if seen > 64 << 10 { break }
            }
        } catch {}
    }
}
