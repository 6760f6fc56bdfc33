extension ProxiedRequest {
    /// This request with `User-Agent` set to `userAgent` (the web view's, so servers see one client whether the
    /// page or native code asks), replacing what the page set.
    public func settingUserAgent(_ userAgent: String) -> ProxiedRequest {
        var copy = self
        copy.headers.removeAll { $0.name.caseInsensitiveCompare("User-Agent") == .orderedSame }
        copy.headers.append((name: "User-Agent", value: userAgent))
        return copy
    }
}
