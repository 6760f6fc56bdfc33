import Foundation
import Synchronization

/// The bytes of one stored body: the whole announced size is reserved when the upload begins, chunks land at their
/// offsets in any order (several are in flight at once), and a reader can stream the bytes from the start while the
/// rest is still arriving. Thread-safe.
///
/// Bounds: no chunk may overlap bytes already received or reach past the announced size. Once the buffer failed
/// (abandoned, expired), readers get the failure and writes are refused.
///
/// The bytes live in memory this object allocates and frees itself, not in a `Data`: a `Data` shared with a reader
/// (a slice, the complete body handed out) would be copied whole by the next write to it.
final class BodyBuffer: @unchecked Sendable {
    let size: Int
    // Written only under `fill`'s lock, at ranges not yet received; read under the lock, or without it once the
    // body is complete (nothing writes to it then). Freed in deinit.
    private let storage: UnsafeMutableRawBufferPointer

    private struct Waiter {
        let id: Int
        let needed: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Fill {
        /// Received byte ranges, sorted, disjoint and merged when adjacent.
        var ranges: [Range<Int>] = []
        var received = 0
        var failure: BodyStoreError?
        var waiters: [Waiter] = []
        var nextWaiter = 0

        /// Bytes available from offset 0 without a gap.
        var prefix: Int { ranges.first.map { $0.lowerBound == 0 ? $0.upperBound : 0 } ?? 0 }
    }

    private let fill: Mutex<Fill>

    /// Reserves `size` bytes (the allocator maps large blocks lazily: pages are committed as chunks land).
    init(size: Int) {
        self.size = size
        storage = .allocate(byteCount: max(1, size), alignment: 16)
        fill = Mutex(Fill())
    }

    deinit { storage.deallocate() }

    var received: Int { fill.withLock { $0.received } }
    var isComplete: Bool { fill.withLock { $0.received == size } }

    /// The whole body once complete, without a copy: the `Data` keeps this buffer alive (nothing writes to a
    /// complete buffer).
    var completeData: Data? {
        guard isComplete else { return nil }
        guard let base = storage.baseAddress, size > 0 else { return Data() }
        return Data(bytesNoCopy: base, count: size, deallocator: .custom { _, _ in withExtendedLifetime(self) {} })
    }

    /// Copies `chunk` to `offset`. Returns the bytes received so far.
    func write(_ chunk: Data, at offset: Int) throws(BodyStoreError) -> Int {
        let result: Result<Int, BodyStoreError> = chunk.withUnsafeBytes { bytes in
            Result { () throws(BodyStoreError) in try write(bytes, at: offset) }
        }
        return try result.get()
    }

    /// Copies `chunk` (bytes a network server holds, say) to `offset`. Returns the bytes received so far.
    func write(_ chunk: UnsafeRawBufferPointer, at offset: Int) throws(BodyStoreError) -> Int {
        let result: Result<(Int, [Waiter]), BodyStoreError> = fill.withLock { fill in
            if let failure = fill.failure { return .failure(failure) }
            guard offset >= 0, offset <= size, chunk.count <= size - offset else {
                return .failure(.badChunk("\(chunk.count) bytes at offset \(offset) reach past the announced \(size)"))
            }
            let range = offset..<(offset + chunk.count)
            guard !range.isEmpty else { return .success((fill.received, [])) }
            // First stored range that ends after the new one starts: the only one that can overlap it.
            let index = fill.ranges.firstIndex { $0.upperBound > range.lowerBound } ?? fill.ranges.endIndex
            if index < fill.ranges.endIndex, fill.ranges[index].overlaps(range) {
                let held = fill.ranges[index]
                let new = "\(range.lowerBound)..<\(range.upperBound)"
                let old = "\(held.lowerBound)..<\(held.upperBound)"
                return .failure(.badChunk("bytes \(new) overlap bytes \(old), which already arrived"))
            }
            if let from = chunk.baseAddress, let to = storage.baseAddress {
                (to + offset).copyMemory(from: from, byteCount: chunk.count)
            }
            Self.insert(range, at: index, into: &fill.ranges)
            fill.received += chunk.count
            let prefix = fill.prefix
            let ready = fill.waiters.filter { $0.needed <= prefix }
            fill.waiters.removeAll { $0.needed <= prefix }
            return .success((fill.received, ready))
        }
        switch result {
        case .success(let (received, ready)):
            for waiter in ready { waiter.continuation.resume() }
            return received
        case .failure(let error):
            throw error
        }
    }

    /// Fails the buffer: waiting and later readers get `error`, later writes are refused. The first failure stays.
    func fail(_ error: BodyStoreError) {
        let waiters: [Waiter] = fill.withLock { fill in
            guard fill.failure == nil, fill.received < size else { return [] }
            fill.failure = error
            defer { fill.waiters.removeAll() }
            return fill.waiters
        }
        for waiter in waiters { waiter.continuation.resume(throwing: error) }
    }

    /// Up to `maxBytes` bytes at `offset`, waiting until at least one byte past `offset` arrived without a gap
    /// before it. Empty at the end. Throws the buffer's failure, or `CancellationError` when the task is cancelled.
    func bytes(at offset: Int, maxBytes: Int) async throws -> Data {
        guard offset < size, maxBytes > 0 else { return Data() }
        try await waitUntil(available: offset + 1)
        let end = fill.withLock { fill in min(fill.prefix, offset + maxBytes) }
        guard let base = storage.baseAddress, end > offset else { return Data() }
        // Without a copy: bytes that arrived are never written again, and the `Data` keeps this buffer alive.
        return Data(
            bytesNoCopy: base + offset, count: end - offset,
            deallocator: .custom { _, _ in withExtendedLifetime(self) {} })
    }

    private func waitUntil(available needed: Int) async throws {
        let slot = WaiterSlot()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = fill.withLock { fill in
                    if fill.prefix >= needed { return .success(()) }
                    if let failure = fill.failure { return .failure(failure) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    let id = fill.nextWaiter
                    fill.nextWaiter += 1
                    fill.waiters.append(Waiter(id: id, needed: needed, continuation: continuation))
                    slot.id.withLock { $0 = id }
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            // The waiter may not be registered yet (then the check under the lock above sees the cancellation).
            guard let id = slot.id.withLock({ $0 }) else { return }
            let waiter: Waiter? = fill.withLock { fill in
                guard let index = fill.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return fill.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Inserts `range` before `index` (where it belongs) and merges it with neighbours it touches.
    private static func insert(_ range: Range<Int>, at index: Int, into ranges: inout [Range<Int>]) {
        var merged = range
        var lower = index
        var upper = index
        if lower > 0, ranges[lower - 1].upperBound == merged.lowerBound {
            lower -= 1
            merged = ranges[lower].lowerBound..<merged.upperBound
        }
        if upper < ranges.endIndex, ranges[upper].lowerBound == merged.upperBound {
            merged = merged.lowerBound..<ranges[upper].upperBound
            upper += 1
        }
        ranges.replaceSubrange(lower..<upper, with: [merged])
    }
}

/// Which waiter a suspended read registered, for its cancellation handler.
private final class WaiterSlot: Sendable {
    let id = Mutex<Int?>(nil)
}
