/// A user script the app registers under a name, so a remote configuration can replace it
/// (``ReplacementScript`` entries name the script they replace).
public struct NamedUserScript: Sendable, Equatable {
    public var name: String
    public var script: UserScript

    public init(_ name: String, _ script: UserScript) {
        self.name = name
        self.script = script
    }
}
