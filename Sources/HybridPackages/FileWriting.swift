import Foundation

/// The seam through which package bytes reach the disk.
///
/// Installs write through this protocol so tests can simulate a full disk (ENOSPC after N bytes) or other
/// write failures without filling a real file system.
public protocol FileWriting: Sendable {
    /// Creates (or truncates) the file at `url` and returns a sink for its bytes.
    func createFile(at url: URL) throws -> any WritableFile
}

/// An open file being written. Not shared between threads: one install owns it from create to close.
public protocol WritableFile: AnyObject {
    func write(_ data: Data) throws
    func close() throws
}
