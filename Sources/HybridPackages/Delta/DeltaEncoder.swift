import Foundation

/// Encodes a binary delta from a base to a target with bsdiff's suffix-sorted matching (Colin Percival, "Naive
/// differences of executable code", 2003), written from the paper's description.
///
/// Why bsdiff: a rebuilt web bundle differs from its predecessor mostly by small edits spread everywhere (the
/// content-hashed names of the chunks it imports, shifted offsets), which bsdiff's approximate matches turn into
/// long runs of zero diff bytes that deflate squeezes to almost nothing; a VCDIFF-style copy/add encoder must
/// restart a copy at every edit. Its cost, building a suffix array of the base, is paid by the publisher only; the
/// decoder is a few loops over the base.
public struct DeltaEncoder: Sendable {
    /// Inputs must be smaller than this: positions are 32-bit in the suffix array.
    public static let maximumInputSize = Int(Int32.max) - 1

    public init() {}

    /// The delta that rebuilds `target` from `base`.
    public func encode(base: [UInt8], target: [UInt8]) throws(DeltaError) -> [UInt8] {
        guard base.count < Self.maximumInputSize else { throw .inputTooLarge(Int64(base.count)) }
        guard target.count < Self.maximumInputSize else { throw .inputTooLarge(Int64(target.count)) }
        let suffixes = SuffixArray(base)
        let records = base.withUnsafeBufferPointer { old in
            target.withUnsafeBufferPointer { new in
                suffixes.indexes.withUnsafeBufferPointer { order in
                    RecordWriter(old: old, new: new, order: order).write()
                }
            }
        }
        let body = try DeltaCompression.deflate(records)
        let header = DeltaFormat.Header(
            baseSize: Int64(base.count), outputSize: Int64(target.count), bodySize: Int64(body.count))
        return header.encoded() + body
    }
}

/// bsdiff's scan: find the longest exact match of the target's next bytes in the base (binary search over the
/// suffix array), and emit a record once the match is not merely the continuation of the previous alignment. The
/// region between two matches is split into an approximate-match part extended forward from the previous match
/// (stored as byte differences, mostly zeros) and an unmatched part (stored as-is), and backward from the new one.
private struct RecordWriter {
    let old: UnsafeBufferPointer<UInt8>
    let new: UnsafeBufferPointer<UInt8>
    let order: UnsafeBufferPointer<Int32>
    private var records: [UInt8] = []
    /// The last record, written out only when the next one is known, so an empty record can be folded into its seek.
    private var pending: (add: Int, extra: Int, seek: Int, lastScan: Int, lastPosition: Int)?

    init(old: UnsafeBufferPointer<UInt8>, new: UnsafeBufferPointer<UInt8>, order: UnsafeBufferPointer<Int32>) {
        self.old = old
        self.new = new
        self.order = order
    }

    consuming func write() -> [UInt8] {
        let oldCount = old.count
        let newCount = new.count
        var scan = 0
        var length = 0
        var position = 0
        var lastScan = 0
        var lastPosition = 0
        var lastOffset = 0
        while scan < newCount {
            var oldScore = 0
            scan += length
            var scored = scan
            while scan < newCount {
                (position, length) = longestMatch(at: scan)
                while scored < scan + length {
                    if scored + lastOffset < oldCount, old[scored + lastOffset] == new[scored] { oldScore += 1 }
                    scored += 1
                }
                // A match worth a new record: exact where the old alignment was too, or 8+ bytes better than it.
                if (length == oldScore && length != 0) || length > oldScore + 8 { break }
                if scan + lastOffset < oldCount, old[scan + lastOffset] == new[scan] { oldScore -= 1 }
                scan += 1
            }
            guard length != oldScore || scan == newCount else { continue }
            // Extend the previous match forward while at least half the bytes agree.
            var agree = 0
            var bestForward = 0
            var forward = 0
            var step = 0
            while lastScan + step < scan, lastPosition + step < oldCount {
                if old[lastPosition + step] == new[lastScan + step] { agree += 1 }
                step += 1
                if agree * 2 - step > bestForward * 2 - forward {
                    bestForward = agree
                    forward = step
                }
            }
            // And the new match backward.
            var backward = 0
            if scan < newCount {
                agree = 0
                var bestBackward = 0
                step = 1
                while scan >= lastScan + step, position >= step {
                    if old[position - step] == new[scan - step] { agree += 1 }
                    if agree * 2 - step > bestBackward * 2 - backward {
                        bestBackward = agree
                        backward = step
                    }
                    step += 1
                }
            }
            // Where the two extensions overlap, split at the point that keeps the most agreeing bytes.
            if lastScan + forward > scan - backward {
                let overlap = (lastScan + forward) - (scan - backward)
                var score = 0
                var bestScore = 0
                var split = 0
                for offset in 0..<overlap {
                    if new[lastScan + forward - overlap + offset] == old[lastPosition + forward - overlap + offset] {
                        score += 1
                    }
                    if new[scan - backward + offset] == old[position - backward + offset] { score -= 1 }
                    if score > bestScore {
                        bestScore = score
                        split = offset + 1
                    }
                }
                forward += split - overlap
                backward -= split
            }
            let extra = (scan - backward) - (lastScan + forward)
            let seek = (position - backward) - (lastPosition + forward)
            append(add: forward, extra: extra, seek: seek, lastScan: lastScan, lastPosition: lastPosition)
            lastScan = scan - backward
            lastPosition = position - backward
            lastOffset = position - scan
        }
        flush()
        return records
    }

    private mutating func append(add: Int, extra: Int, seek: Int, lastScan: Int, lastPosition: Int) {
        // The decoder refuses records that write nothing after the first (so a hostile delta cannot spin without
        // output); such a record only moves the read position, which the previous record's seek can do.
        if add == 0, extra == 0, var previous = pending {
            previous.seek += seek
            pending = previous
            return
        }
        flush()
        pending = (add, extra, seek, lastScan, lastPosition)
    }

    private mutating func flush() {
        guard let (add, extra, seek, lastScan, lastPosition) = pending else { return }
        pending = nil
        DeltaFormat.appendVarint(UInt64(add), to: &records)
        DeltaFormat.appendVarint(UInt64(extra), to: &records)
        DeltaFormat.appendVarint(DeltaFormat.zigzag(Int64(seek)), to: &records)
        appendChunks(add: add, lastScan: lastScan, lastPosition: lastPosition)
        records.append(contentsOf: new[(lastScan + add)..<(lastScan + add + extra)])
    }

    /// A zero run at least this long ends a chunk's changed bytes; shorter ones cost less inside them.
    private static let minimumSameRun = 8

    /// Writes the `add` bytes as chunks: a run of bytes equal to the base (a count, no data), then the changed bytes
    /// (differences to the base). bsdiff writes every difference, zeros included; deflate spends about a byte per
    /// 258 zeros (its longest match), which on the real releases was most of the delta.
    private mutating func appendChunks(add: Int, lastScan: Int, lastPosition: Int) {
        func difference(_ offset: Int) -> UInt8 { new[lastScan + offset] &- old[lastPosition + offset] }
        var offset = 0
        while offset < add {
            var same = 0
            while offset + same < add, difference(offset + same) == 0 { same += 1 }
            let changedStart = offset + same
            var end = changedStart
            while end < add {
                guard difference(end) == 0 else {
                    end += 1
                    continue
                }
                var run = 0
                while end + run < add, run < Self.minimumSameRun, difference(end + run) == 0 { run += 1 }
                if run >= Self.minimumSameRun { break }
                end += run
            }
            DeltaFormat.appendVarint(UInt64(same), to: &records)
            DeltaFormat.appendVarint(UInt64(end - changedStart), to: &records)
            for position in changedStart..<end { records.append(difference(position)) }
            offset = end
        }
    }

    /// The longest prefix of `new[start...]` found in the base, by binary search over the sorted suffixes.
    private func longestMatch(at start: Int) -> (position: Int, length: Int) {
        var low = 0
        var high = old.count
        let remaining = new.count - start
        while high - low >= 2 {
            let middle = low + (high - low) / 2
            let suffix = Int(order[middle])
            let compared = min(old.count - suffix, remaining)
            if compare(suffix, start, compared) < 0 { low = middle } else { high = middle }
        }
        let lowSuffix = Int(order[low])
        let highSuffix = Int(order[high])
        let lowLength = matchLength(lowSuffix, start)
        let highLength = matchLength(highSuffix, start)
        return lowLength > highLength ? (lowSuffix, lowLength) : (highSuffix, highLength)
    }

    private func compare(_ oldStart: Int, _ newStart: Int, _ count: Int) -> Int32 {
        guard count > 0, let oldBase = old.baseAddress, let newBase = new.baseAddress else { return 0 }
        return memcmp(oldBase + oldStart, newBase + newStart, count)
    }

    private func matchLength(_ oldStart: Int, _ newStart: Int) -> Int {
        var length = 0
        while oldStart + length < old.count, newStart + length < new.count,
            old[oldStart + length] == new[newStart + length]
        {
            length += 1
        }
        return length
    }
}
