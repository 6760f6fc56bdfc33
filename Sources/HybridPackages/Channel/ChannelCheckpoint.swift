import Crypto
import Foundation

/// What an install remembers of the last index it accepted for one package and channel
/// (`<store>/.channels/<channel>/<id>.json`): the floor for the next sequence, and the bytes and entity tag
/// for revalidating with `If-None-Match`.
struct ChannelCheckpoint: Sendable, Codable, Equatable {
    var sequence: Int
    /// SHA-256 (hex) of the accepted file, to tell a repeat of the same index from a different one.
    var sha256: String
    /// The server's `ETag` for those bytes, when it sent one.
    var entityTag: String?
    /// The accepted file, so a 304 answer can be served (and re-checked for expiry) from it.
    var file: Data

    static func digest(_ data: Data) -> String { Array(SHA256.hash(data: data)).hexString }

    static func url(storeRoot: URL, channel: String, id: String) -> URL {
        storeRoot.appendingPathComponent(".channels", isDirectory: true)
            .appendingPathComponent(channel, isDirectory: true).appendingPathComponent("\(id).json")
    }

    static func load(from url: URL) -> ChannelCheckpoint? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(ChannelCheckpoint.self, from: data)
    }

    func save(to url: URL) throws(PackageError) {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .wrapping(error, operation: "create", path: url.deletingLastPathComponent().path)
        }
        let data: Data
        do { data = try JSONEncoder().encode(self) } catch {
            throw .wrapping(error, operation: "encode", path: url.path)
        }
        try DurableFiles.atomicWrite(data, to: url)
    }
}
