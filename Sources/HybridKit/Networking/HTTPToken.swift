/// RFC 9110 §5.6.2's `token`: what a header name or a method must be on the wire, and what a page's `new Headers`
/// takes as a name. One definition for every place that checks one (prefetch declarations, the proxy's answers,
/// proxied requests).
package enum HTTPToken {
    /// Whether `text` is a token: one or more visible ASCII characters, none of them a delimiter.
    package static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (0x21...0x7E).contains(byte) && !#"()<>@,;:\"/[]?={}"#.utf8.contains(byte)
            }
    }
}
