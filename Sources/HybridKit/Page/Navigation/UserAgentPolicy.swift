/// How the app's user agent is made from the engine's (a custom user agent beats an application name, which beats the
/// default). The same resolved string goes to the engine and to native requests made for the page.
public enum UserAgentPolicy: Sendable, Equatable {
    case engineDefault
    /// The engine's user agent, a space, then this (e.g. `"MyApp/2.1"`): servers still see the browser.
    case appending(String)
    /// Exactly this string.
    case replacing(String)

    public func resolve(engineDefault: String) -> String {
        switch self {
        case .engineDefault: engineDefault
        case .appending(let suffix):
            suffix.isEmpty ? engineDefault : engineDefault.isEmpty ? suffix : "\(engineDefault) \(suffix)"
        case .replacing(let value): value
        }
    }
}
