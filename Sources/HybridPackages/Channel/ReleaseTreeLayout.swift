import Foundation

/// The directory `hybrid publish` writes and any static server serves as is:
///
/// ```
/// files/<sha256>.zip              full and diff packages, named by their content: immutable, cache forever
/// channels/<channel>/<id>.json    the signed index of one package on one channel: small, revalidated
/// ```
public struct ReleaseTreeLayout: Sendable {
    public let root: URL

    public init(root: URL) { self.root = root }

    public static let filesName = "files"
    public static let channelsName = "channels"

    public var filesDirectory: URL { root.appendingPathComponent(Self.filesName, isDirectory: true) }

    public func file(sha256: String) -> URL { filesDirectory.appendingPathComponent("\(sha256).zip") }

    public func channelDirectory(_ channel: String) -> URL {
        root.appendingPathComponent(Self.channelsName, isDirectory: true)
            .appendingPathComponent(channel, isDirectory: true)
    }

    public func index(channel: String, id: String) -> URL {
        channelDirectory(channel).appendingPathComponent("\(id).json")
    }

    /// The path of an index below the tree's root URL (what a client appends to the base URL).
    public static func indexPath(channel: String, id: String) -> String {
        "\(channelsName)/\(channel)/\(id).json"
    }

    /// A file's URL as written in an index: relative to the index (`channels/<channel>/`), so the tree can be
    /// served from any base URL or moved to another host without re-signing.
    public static func relativeFileURL(sha256: String) -> String { "../../\(filesName)/\(sha256).zip" }
}
