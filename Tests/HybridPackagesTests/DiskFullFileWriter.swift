import Foundation
import HybridPackages
import Synchronization

/// Simulates a disk that fills up: real writes until `capacity` bytes in total, then ENOSPC.
final class DiskFullFileWriter: FileWriting {
    private let remaining: Mutex<Int>
    private let real = POSIXFileWriter()

    init(capacity: Int) { remaining = Mutex(capacity) }

    func createFile(at url: URL) throws -> any WritableFile {
        LimitedFile(inner: try real.createFile(at: url), owner: self)
    }

    /// Takes `count` bytes of capacity, or throws ENOSPC when there is not enough left.
    func reserve(_ count: Int) throws {
        try remaining.withLock { left in
            guard left >= count else { throw POSIXError(.ENOSPC) }
            left -= count
        }
    }

    private final class LimitedFile: WritableFile {
        let inner: any WritableFile
        let owner: DiskFullFileWriter
        init(inner: any WritableFile, owner: DiskFullFileWriter) {
            self.inner = inner
            self.owner = owner
        }
        func write(_ data: Data) throws {
            try owner.reserve(data.count)
            try inner.write(data)
        }
        func close() throws { try inner.close() }
    }
}
