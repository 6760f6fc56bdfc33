/// The suffix array of a byte string, built with Larsson and Sadakane's prefix-doubling sort ("Faster Suffix
/// Sorting", 1999), the "qsufsort" that bsdiff uses.
///
/// Why this algorithm: it is short, needs only two integer arrays beside the input (8 bytes per base byte with
/// 32-bit indexes), and runs in O(n log n) on the front-end assets a release carries; SA-IS is linear but several
/// times longer to get right. The encoder runs on the publisher's machine only, never on a phone.
///
/// `indexes[0]` is the empty suffix (position `count`); `indexes[1...]` are the suffixes in lexicographic order.
struct SuffixArray: Sendable {
    let indexes: [Int32]

    /// Sorts the suffixes of `bytes`, which must be shorter than `Int32.max` (the encoder refuses larger bases).
    init(_ bytes: [UInt8]) {
        let count = bytes.count
        var order = [Int32](repeating: 0, count: count + 1)
        var rank = [Int32](repeating: 0, count: count + 1)
        order.withUnsafeMutableBufferPointer { orderBuffer in
            rank.withUnsafeMutableBufferPointer { rankBuffer in
                bytes.withUnsafeBufferPointer { input in
                    var sorter = Sorter(order: orderBuffer, rank: rankBuffer)
                    sorter.sort(input)
                }
            }
        }
        indexes = order
    }

    /// The working state of one sort. `order` holds suffix positions grouped by their first `h` bytes; a negative
    /// entry `-k` marks a run of `k` suffixes already in their final place (skipped by later passes). `rank` maps
    /// a suffix to its group's number: the index of the group's last slot in `order`, so ranks order like groups.
    private struct Sorter {
        let order: UnsafeMutableBufferPointer<Int32>
        let rank: UnsafeMutableBufferPointer<Int32>

        mutating func sort(_ input: UnsafeBufferPointer<UInt8>) {
            let count = input.count
            // Bucket sort by the first byte. Slot 0 is the empty suffix, smaller than every other.
            var bucketEnds = [Int](repeating: 0, count: 256)
            for byte in input { bucketEnds[Int(byte)] += 1 }
            var total = 0
            for value in 0..<256 {
                total += bucketEnds[value]
                bucketEnds[value] = total
            }
            var next = [Int](repeating: 0, count: 256)
            for value in 0..<256 { next[value] = value == 0 ? 1 : bucketEnds[value - 1] + 1 }
            for position in 0..<count {
                let byte = Int(input[position])
                order[next[byte]] = Int32(position)
                next[byte] += 1
            }
            order[0] = Int32(count)
            for position in 0..<count { rank[position] = Int32(bucketEnds[Int(input[position])]) }
            rank[count] = 0
            // Groups of one are sorted already.
            order[0] = -1
            for value in 0..<256 {
                let start = value == 0 ? 1 : bucketEnds[value - 1] + 1
                if bucketEnds[value] - start + 1 == 1 { order[start] = -1 }
            }
            var h = 1
            while Int(order[0]) != -(count + 1) {
                var sortedRun = 0
                var slot = 0
                while slot < count + 1 {
                    let value = Int(order[slot])
                    if value < 0 {
                        sortedRun -= value
                        slot -= value
                    } else {
                        if sortedRun > 0 { order[slot - sortedRun] = Int32(-sortedRun) }
                        let groupLength = Int(rank[value]) + 1 - slot
                        split(start: slot, length: groupLength, h: h)
                        slot += groupLength
                        sortedRun = 0
                    }
                }
                if sortedRun > 0 { order[slot - sortedRun] = Int32(-sortedRun) }
                h += h
            }
            // Every suffix is alone in its group: its rank is its place.
            for position in 0...count { order[Int(rank[position])] = Int32(position) }
        }

        private func key(_ slot: Int, _ h: Int) -> Int32 { rank[Int(order[slot]) + h] }

        private func swapAt(_ a: Int, _ b: Int) {
            let value = order[a]
            order[a] = order[b]
            order[b] = value
        }

        /// Refines the group `order[start..<start+length]` by the rank of the suffix `h` bytes further on
        /// (ternary-split quicksort; a selection sort below 16 elements), giving every new group its number.
        private func split(start: Int, length: Int, h: Int) {
            var start = start
            var length = length
            while length > 0 {
                if length < 16 {
                    selectionSplit(start: start, length: length, h: h)
                    return
                }
                let pivot = key(start + length / 2, h)
                var lessCount = 0
                var equalCount = 0
                for slot in start..<(start + length) {
                    let value = key(slot, h)
                    if value < pivot { lessCount += 1 } else if value == pivot { equalCount += 1 }
                }
                let equalStart = start + lessCount
                let greaterStart = equalStart + equalCount
                var slot = start
                var equalFill = 0
                var greaterFill = 0
                while slot < equalStart {
                    let value = key(slot, h)
                    if value < pivot {
                        slot += 1
                    } else if value == pivot {
                        swapAt(slot, equalStart + equalFill)
                        equalFill += 1
                    } else {
                        swapAt(slot, greaterStart + greaterFill)
                        greaterFill += 1
                    }
                }
                while equalStart + equalFill < greaterStart {
                    if key(equalStart + equalFill, h) == pivot {
                        equalFill += 1
                    } else {
                        swapAt(equalStart + equalFill, greaterStart + greaterFill)
                        greaterFill += 1
                    }
                }
                if equalStart > start { split(start: start, length: equalStart - start, h: h) }
                for slot in equalStart..<greaterStart { rank[Int(order[slot])] = Int32(greaterStart - 1) }
                if greaterStart - equalStart == 1 { order[equalStart] = -1 }
                // The greater part is a loop, not a call, so the stack grows only with the smaller side's depth.
                length = start + length - greaterStart
                start = greaterStart
            }
        }

        private func selectionSplit(start: Int, length: Int, h: Int) {
            let end = start + length
            var first = start
            while first < end {
                var minimum = key(first, h)
                var found = 1
                var slot = first + 1
                while slot < end {
                    let value = key(slot, h)
                    if value < minimum {
                        minimum = value
                        found = 0
                    }
                    if value == minimum {
                        swapAt(first + found, slot)
                        found += 1
                    }
                    slot += 1
                }
                for member in first..<(first + found) { rank[Int(order[member])] = Int32(first + found - 1) }
                if found == 1 { order[first] = -1 }
                first += found
            }
        }
    }
}
