import Foundation

/// The on-disk key format: one line `hybridkit-ed25519-<kind>-v1 <base64 of the 32 raw key bytes>`.
///
/// A labelled one-liner instead of PEM keeps the files greppable and makes swapping public and private keys a
/// clear error instead of a confusing signature failure.
enum KeyFile {
    static let privateLabel = "hybridkit-ed25519-private-v1"
    static let publicLabel = "hybridkit-ed25519-public-v1"

    static func read(_ url: URL, expecting label: String) throws(KeyFileError) -> Data {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw .unreadable(path: url.path, reason: error.localizedDescription)
        }
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        guard parts.count == 2 else { throw .malformed(path: url.path) }
        guard parts[0] == label else {
            let found =
                parts[0] == privateLabel ? "private" : parts[0] == publicLabel ? "public" : String(parts[0])
            throw .wrongKind(
                path: url.path, expected: label == privateLabel ? "private" : "public", found: found)
        }
        guard let bytes = Data(base64Encoded: String(parts[1])), bytes.count == 32 else {
            throw .malformed(path: url.path)
        }
        return bytes
    }

    static func write(_ bytes: Data, label: String, to url: URL, permissions: Int)
        throws(KeyFileError)
    {
        let line = Data((label + " " + bytes.base64EncodedString() + "\n").utf8)
        // Created with its final mode (not chmodded after writing), so a private key is never readable by
        // others, not even for a moment; then renamed over the target so a reader never sees half a key.
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(permissions))
        guard fd >= 0 else {
            throw .unwritable(path: url.path, reason: String(cString: strerror(errno)))
        }
        let written = line.withUnsafeBytes { raw in raw.baseAddress.map { Foundation.write(fd, $0, raw.count) } ?? 0 }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == line.count, synced, rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw .unwritable(path: url.path, reason: reason)
        }
    }
}
