import Crypto
import Foundation

/// Downloads artifacts into a directory, resumably: bytes are appended to `<sha256>.part`, and a later call
/// (even from a new process) continues from the partial file's size. The finished file is renamed to
/// `<sha256>.zip` only after its size and SHA-256 match the release.
public struct PackageDownloader: Sendable {
    public let client: any UpdateClient
    public let directory: URL
    /// Bytes asked for per request.
    public let chunkSize: Int64
    /// Consecutive failed or empty requests tolerated before giving up (progress resets the count).
    public let maxAttempts: Int

    public init(
        client: any UpdateClient, directory: URL, chunkSize: Int64 = 1 << 20, maxAttempts: Int = 3
    ) {
        self.client = client
        self.directory = directory
        self.chunkSize = max(1, chunkSize)
        self.maxAttempts = max(1, maxAttempts)
    }

    /// The partial file for `artifact` (exists while a download is incomplete).
    public func partialURL(for artifact: PackageArtifact) -> URL {
        directory.appendingPathComponent("\(artifact.sha256).part")
    }

    /// Downloads (or finishes downloading) `artifact` and returns the verified file.
    public func download(_ artifact: PackageArtifact, progress: PackageProgressHandler? = nil)
        async throws(DownloadError)
        -> URL
    {
        let final = directory.appendingPathComponent("\(artifact.sha256).zip")
        let partial = partialURL(for: artifact)
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: final.path) { return final }
        let handle: FileHandle
        var received: Int64
        do {
            try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
            if !fileManager.fileExists(atPath: partial.path) {
                guard fileManager.createFile(atPath: partial.path, contents: nil) else {
                    throw DownloadError.fileSystem(path: partial.path, reason: "cannot create the file")
                }
            }
            handle = try FileHandle(forWritingTo: partial)
            received = Int64(try handle.seekToEnd())
        } catch {
            throw .fileSystem(path: partial.path, reason: "\(error)")
        }
        defer { try? handle.close() }
        if received > artifact.size {
            // More than the artifact's size cannot be a prefix of it: start over.
            try? handle.truncate(atOffset: 0)
            received = 0
        }

        var failures = 0
        var lastFailure = ""
        while received < artifact.size {
            let end = min(received + chunkSize, artifact.size)
            let bytes: [UInt8]
            do {
                bytes = try await client.fetch(artifact, range: received..<end)
            } catch {
                failures += 1
                lastFailure = "\(error)"
                if failures >= maxAttempts {
                    throw .transferFailed(
                        location: artifact.location, received: received, reason: lastFailure)
                }
                continue
            }
            if bytes.isEmpty {
                failures += 1
                if failures >= maxAttempts {
                    throw .truncated(location: artifact.location, received: received, expected: artifact.size)
                }
                continue
            }
            guard Int64(bytes.count) <= end - received else {
                throw .protocolViolation(
                    location: artifact.location,
                    reason: "asked for \(end - received) bytes, got \(bytes.count)")
            }
            do { try handle.write(contentsOf: bytes) } catch {
                throw .fileSystem(path: partial.path, reason: "\(error)")
            }
            received += Int64(bytes.count)
            failures = 0
            progress?(
                PackageProgress(phase: .downloading, completedBytes: received, totalBytes: artifact.size))
        }

        let digest: String
        do {
            try handle.synchronize()
            digest = try FileHashing.sha256(of: partial).hex
        } catch {
            throw .fileSystem(path: partial.path, reason: "\(error)")
        }
        guard digest == artifact.sha256 else {
            try? fileManager.removeItem(at: partial)
            throw .checksumMismatch(location: artifact.location)
        }
        do { try fileManager.moveItem(at: partial, to: final) } catch {
            throw .fileSystem(path: final.path, reason: "\(error)")
        }
        return final
    }
}
