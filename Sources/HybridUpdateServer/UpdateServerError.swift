/// Why the update server could not start or list its packages.
public enum UpdateServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case directoryUnreadable(path: String, reason: String)
    case didNotStart(host: String, port: Int)

    public var description: String {
        switch self {
        case .directoryUnreadable(let path, let reason):
            return "Cannot list the package directory '\(path)': \(reason). Pass a readable directory of package zips."
        case .didNotStart(let host, let port):
            return
                "The update server could not listen on \(host):\(port); is the port taken? Try --port 0 for any free port."
        }
    }
}
