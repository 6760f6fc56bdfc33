/// A script message handler of the host's own, registered next to the bridge's.
///
/// The engine only ever holds it weakly (through a proxy): whoever configured it keeps it alive.
public struct HostMessageHandler: Sendable {
    public var name: String
    public var handler: any ScriptMessageHandler
    public var replies: Bool

    public init(name: String, handler: any ScriptMessageHandler, replies: Bool = false) {
        self.name = name
        self.handler = handler
        self.replies = replies
    }
}
