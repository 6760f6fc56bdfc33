/// A script the engine injects into every document it loads.
public struct UserScript: Sendable, Equatable {
    public enum InjectionTime: Sendable { case documentStart, documentEnd }

    public var source: String
    public var injectionTime: InjectionTime
    /// `false` injects into the main frame only.
    public var allFrames: Bool

    public init(source: String, injectionTime: InjectionTime = .documentStart, allFrames: Bool = true) {
        self.source = source
        self.injectionTime = injectionTime
        self.allFrames = allFrames
    }
}
