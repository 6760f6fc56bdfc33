import Foundation

/// `If-None-Match` evaluation (RFC 9110 §13.1.2): weak comparison, `*` matches any current file.
public enum EntityTagMatch {
    public static func matches(ifNoneMatch header: String?, current: String) -> Bool {
        guard let header else { return false }
        let current = strip(current)
        for candidate in header.split(separator: ",") {
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" || strip(tag) == current { return true }
        }
        return false
    }

    /// Weak comparison ignores the `W/` prefix.
    private static func strip(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }
}
