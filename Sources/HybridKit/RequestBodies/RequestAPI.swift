/// The page APIs the hooks wrap, each switchable on its own (a remote configuration's hook switches).
public enum RequestAPI: String, Sendable, CaseIterable, Codable {
    case xhr
    case fetch
    case sendBeacon
    case form
}
