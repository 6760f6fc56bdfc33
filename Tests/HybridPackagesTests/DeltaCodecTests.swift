import Foundation
import HybridPackages
import HybridTestSupport
import Testing
import ZIPFoundation

/// The binary delta codec on its own: round trips on random and structured data, edge cases, and hostile deltas
/// that must end in a typed ``DeltaError`` (never a crash, a hang or output past the declared size).
@Suite("Delta codec")
struct DeltaCodecTests {
    // MARK: Round trips

    @Test("random data with edits round-trips", arguments: [1, 2, 3, 4, 5])
    func randomRoundTrip(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let base = random.bytes(Int(random.next() % 20_000) + 1)
        let target = random.edited(base)
        try expectRoundTrip(base: base, target: target)
    }

    @Test("unrelated random data round-trips")
    func unrelatedRoundTrip() throws {
        var random = SeededRandom(seed: 99)
        try expectRoundTrip(base: random.bytes(5_000), target: random.bytes(7_000))
    }

    @Test("a rebuilt bundle with renamed chunk hashes is a small delta")
    func structuredRoundTrip() throws {
        let old = Self.bundle(hashes: ["3f2a1c9b", "a81bc0de", "77e0f1aa"], version: "1.4.0")
        let new = Self.bundle(hashes: ["9c0d3e4f", "a81bc0de", "12ab34cd"], version: "1.4.1")
        let delta = try expectRoundTrip(base: old, target: new)
        let deflated = try Data(new).deflated().count
        #expect(Double(delta.count) < 0.2 * Double(deflated), "delta \(delta.count) vs deflated \(deflated)")
    }

    @Test("empty and identical files")
    func edgeCases() throws {
        let text = Array("hello, world — the same bytes".utf8)
        try expectRoundTrip(base: [], target: [])
        try expectRoundTrip(base: [], target: text)
        try expectRoundTrip(base: text, target: [])
        let identical = try expectRoundTrip(base: text, target: text)
        #expect(identical.count < 60)
        try expectRoundTrip(base: [7], target: [7])
        try expectRoundTrip(base: Array(repeating: 0, count: 4096), target: Array(repeating: 0, count: 4097))
    }

    @Test("repetitive inputs (worst cases for suffix sorting) round-trip")
    func repetitiveRoundTrip() throws {
        let aaa = [UInt8](repeating: 97, count: 3000)
        let abab = (0..<3000).map { UInt8($0 % 2 == 0 ? 97 : 98) }
        let period7 = (0..<5000).map { UInt8(97 + $0 % 7) }
        try expectRoundTrip(base: aaa, target: abab)
        try expectRoundTrip(base: abab, target: aaa + abab)
        try expectRoundTrip(base: period7, target: Array(period7.reversed()))
    }

    // MARK: Hostile deltas

    @Test("a delta that is not one, or of an unknown version or compression, is refused")
    func badHeaders() throws {
        let base = Array("base".utf8)
        let good = try DeltaEncoder().encode(base: base, target: Array("based".utf8))
        #expect(try decodeError(Data("not a delta at all, just text".utf8), base: base, size: 5) == .notADelta)
        #expect(try decodeError(Data(good.prefix(10)), base: base, size: 5) == .truncated)
        #expect(try decodeError(Data(), base: base, size: 5) == .truncated)
        var version = good
        version[8] = 9
        #expect(try decodeError(Data(version), base: base, size: 5) == .unsupportedVersion(9))
        var compression = good
        compression[9] = 2
        #expect(try decodeError(Data(compression), base: base, size: 5) == .unsupportedCompression(2))
        #expect(try decodeError(Data(good), base: base + [1], size: 5) == .baseSizeMismatch(declared: 4, actual: 5))
        #expect(try decodeError(Data(good), base: base, size: 6) == .outputSizeMismatch(declared: 5, expected: 6))
    }

    @Test("a delta truncated anywhere is a typed error")
    func truncatedEverywhere() throws {
        var random = SeededRandom(seed: 7)
        let base = random.bytes(3000)
        let target = random.edited(base)
        let delta = try DeltaEncoder().encode(base: base, target: target)
        for length in 0..<delta.count {
            let error = try decodeError(Data(delta.prefix(length)), base: base, size: Int64(target.count))
            #expect(error != nil, "a \(length)-byte prefix decoded")
        }
    }

    @Test("corrupted deltas never crash and never exceed the declared size")
    func corruptedBytes() throws {
        var random = SeededRandom(seed: 11)
        let base = random.bytes(4000)
        let target = random.edited(base)
        let delta = try DeltaEncoder().encode(base: base, target: target)
        for _ in 0..<300 {
            var damaged = delta
            let flips = Int(random.next() % 4) + 1
            for _ in 0..<flips {
                let at = Int(random.next() % UInt64(damaged.count))
                damaged[at] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            }
            var produced = 0
            do {
                try DeltaDecoder().apply(delta: Data(damaged), base: Data(base), expectedSize: Int64(target.count)) {
                    produced += $0.count
                }
                // Decoded: the size is exactly the declared one (the installer's SHA-256 catches wrong bytes).
                #expect(produced == target.count)
            } catch is DeltaError {
                #expect(produced <= target.count)
            }
        }
    }

    @Test("control triples with impossible lengths or seeks are refused")
    func hostileControls() throws {
        let base = Array("0123456789".utf8)
        let triple = Self.triple
        // Adds more than the output holds (and an overflowing length).
        #expect(
            try hostile(base, 4, triple(UInt64.max, 0, 0))
                == .invalidControl("triple 0 adds \(UInt64.max) bytes, past the declared output size"))
        #expect(try isInvalidControl(hostile(base, 4, triple(2, UInt64.max - 1, 0))))
        // Reads past the end of the base.
        #expect(try isInvalidControl(hostile(base, 20, triple(11, 0, 0) + [UInt8](repeating: 0, count: 11))))
        // Seeks before the start or past the end of the base.
        #expect(try isInvalidControl(hostile(base, 4, triple(1, 0, -2) + [0] + triple(1, 0, 0) + [0])))
        #expect(try isInvalidControl(hostile(base, 4, triple(1, 0, Int64.max) + [0])))
        #expect(try isInvalidControl(hostile(base, 4, triple(1, 0, Int64.min) + [0])))
        // Numbers past 64 bits or longer than 10 bytes.
        #expect(try isInvalidControl(hostile(base, 4, [UInt8](repeating: 0xff, count: 9) + [0x02, 0, 0])))
        #expect(try isInvalidControl(hostile(base, 4, [UInt8](repeating: 0x80, count: 11) + [0, 0])))
        // A triple after the first that writes nothing (a spin without output).
        #expect(try isInvalidControl(hostile(base, 4, triple(0, 1, 0) + [65] + triple(0, 0, 1))))
        // Output complete, then more records.
        #expect(try hostile(base, 1, triple(0, 1, 0) + [65] + triple(0, 1, 0) + [66]) == .trailingData)
        // Stream ends before the output is complete.
        #expect(try hostile(base, 5, triple(0, 2, 0) + [65, 66]) == .truncated)
        // Stream ends inside a control triple.
        #expect(try hostile(base, 5, Array(triple(0, 2, 0).prefix(10))) == .truncated)
        // A valid hand-made delta decodes (the helper itself is right).
        var output = Data()
        try DeltaDecoder().apply(
            delta: Self.delta(baseSize: 10, outputSize: 5, records: triple(4, 1, 3) + [1, 1, 1] + [2, 0] + [33]),
            base: Data(base), expectedSize: 5
        ) { output.append($0) }
        #expect(output == Data("0223!".utf8))
        // Chunks longer than their add, or empty.
        #expect(try isInvalidControl(hostile(base, 4, triple(2, 0, 0) + [3, 0])))
        #expect(try isInvalidControl(hostile(base, 4, triple(2, 0, 0) + [1, 2, 0, 0])))
        #expect(try isInvalidControl(hostile(base, 4, triple(2, 0, 0) + [0, 0])))
        #expect(try isInvalidControl(hostile(base, 4, triple(2, 0, 0) + [UInt8](repeating: 0xff, count: 9) + [1, 0])))
    }

    @Test("a deflate bomb or oversized delta stops at the declared size")
    func bombs() throws {
        let base = Array("abc".utf8)
        // 64 MiB of zeros after a complete 100 KB output, inflating from ~64 KB: refused at the first byte past
        // the output, long before the rest is inflated.
        // The zeros are generated while deflating, never held: other suites in this process measure its peak memory.
        let head = Self.triple(0, 100_000, 0)
        let recordsSize = head.count + 100_000 + (64 << 20)
        var body = Data()
        _ = try Data.compress(
            size: Int64(recordsSize), bufferSize: 64 * 1024,
            provider: { position, size in
                var chunk = Data(count: size)
                if position == 0 { chunk.replaceSubrange(0..<head.count, with: head) }
                return chunk
            },
            consumer: { body.append($0) })
        var bombHeader = Array("HKDELTA".utf8) + [0, 1, 1, 0, 0]
        bombHeader += Self.le(3) + Self.le(100_000) + Self.le(UInt64(body.count))
        let delta = Data(bombHeader) + body
        #expect(delta.count < 100_000)
        let started = Date()
        #expect(try decodeError(delta, base: base, size: 100_000) == .trailingData)
        #expect(Date().timeIntervalSince(started) < 5)
        let huge = Data(count: Int(DeltaDecoder.sizeLimit(outputSize: 10)) + 1)
        #expect(
            try decodeError(huge, base: base, size: 10)
                == .tooLarge(size: Int64(huge.count), limit: DeltaDecoder.sizeLimit(outputSize: 10)))
        // Corrupt deflate data right after a valid header.
        let header = Array(try DeltaEncoder().encode(base: base, target: base).prefix(28)) + Self.le(4)
        #expect(try decodeError(Data(header + [0xff, 0xff, 0xff, 0xff]), base: base, size: 3) == .corruptStream)
        // A body size that disagrees with the bytes present.
        let good = try DeltaEncoder().encode(base: base, target: base)
        #expect(try decodeError(Data(good + [0]), base: base, size: 3) == .trailingData)
    }

    // MARK: Base matching

    @Test("content hashes are taken out of names")
    func strippedNames() {
        let cases: [(String, String)] = [
            ("static/js/main.3f2a1c9b.js", "static/js/main.js"),
            ("assets/index-BkD3fJ2a.js", "assets/index.js"),
            ("css/chunk.abc123ef.css", "css/chunk.css"),
            ("static/js/1074.5c3b2a1d.chunk.js", "static/js/1074.chunk.js"),
            ("assets/Blocks-DnE1j7QZ.js", "assets/Blocks.js"),
            ("index.html", "index.html"),
            ("assets/vendor-react.js", "assets/vendor-react.js"),
            ("fonts/inter-latin-400-normal.woff2", "fonts/inter-latin-400-normal.woff2"),
        ]
        for (path, stripped) in cases { #expect(DeltaBaseMatcher.strippedPath(path) == stripped, "\(path)") }
    }

    @Test("the base of a renamed file is its old name, else the most similar file of its type")
    func baseChoice() {
        var random = SeededRandom(seed: 3)
        let shared = random.bytes(4000)
        let other = random.bytes(4000)
        let matcher = DeltaBaseMatcher(oldFiles: [
            "assets/index-AAAAAA11.js": other, "assets/index-BBBBBB22.js": shared, "assets/app.js": other,
            "assets/style-CCCCCC33.css": shared,
        ])
        #expect(matcher.base(for: "assets/app.js", bytes: shared) == "assets/app.js")
        #expect(
            matcher.base(for: "assets/index-ZZZZZZ99.js", bytes: random.edited(shared)) == "assets/index-BBBBBB22.js")
        #expect(matcher.base(for: "assets/other-QQQQQQ77.js", bytes: random.edited(other)) != nil)
        #expect(matcher.base(for: "assets/new.js", bytes: random.bytes(4000)) == nil)
        #expect(matcher.base(for: "assets/new.svg", bytes: shared) == nil)
    }

    // MARK: Helpers

    @discardableResult
    private func expectRoundTrip(base: [UInt8], target: [UInt8]) throws -> [UInt8] {
        let delta = try DeltaEncoder().encode(base: base, target: target)
        var output = Data()
        try DeltaDecoder().apply(delta: Data(delta), base: Data(base), expectedSize: Int64(target.count)) {
            output.append($0)
        }
        #expect(output == Data(target))
        return delta
    }

    private func decodeError(_ delta: Data, base: [UInt8], size: Int64) throws -> DeltaError? {
        do {
            try DeltaDecoder().apply(delta: delta, base: Data(base), expectedSize: size) { _ in }
            return nil
        } catch let error as DeltaError {
            return error
        }
    }

    private func hostile(_ base: [UInt8], _ size: Int64, _ records: [UInt8]) throws -> DeltaError? {
        try decodeError(
            Self.delta(baseSize: UInt64(base.count), outputSize: UInt64(size), records: records), base: base,
            size: size)
    }

    private func isInvalidControl(_ error: DeltaError?) -> Bool {
        if case .invalidControl = error { return true }
        return false
    }

    /// A delta with the given header sizes and raw (uncompressed) record stream, as a hostile publisher builds it.
    static func delta(baseSize: UInt64, outputSize: UInt64, records: [UInt8]) throws -> Data {
        let body = try Data(records).deflated()
        var bytes = Array("HKDELTA".utf8) + [0, 1, 1, 0, 0]
        bytes += le(baseSize) + le(outputSize) + le(UInt64(body.count))
        return Data(bytes) + body
    }

    /// A control triple as the format writes it: three LEB128 varints, the seek zigzag-encoded.
    static func triple(_ add: UInt64, _ extra: UInt64, _ seek: Int64) -> [UInt8] {
        varint(add) + varint(extra) + varint(UInt64(bitPattern: (seek << 1) ^ (seek >> 63)))
    }

    static func varint(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        return bytes + [UInt8(rest)]
    }

    static func le(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// A minified-bundle-like text importing chunks by hashed names.
    static func bundle(hashes: [String], version: String) -> [UInt8] {
        var text = "/*! app \(version) */"
        for index in 0..<400 {
            let chunk = hashes[index % hashes.count]
            text +=
                "function f\(index)(a,b){return import(\"./chunk-\(chunk).js\").then(m=>m.g\(index % 17)(a+\(index),b))}"
        }
        return Array(text.utf8)
    }
}

extension Data {
    /// Raw deflate, as the delta body uses.
    func deflated() throws -> Data {
        var output = Data()
        let input = self
        _ = try Data.compress(
            size: Int64(input.count), bufferSize: 64 * 1024,
            provider: { position, size in
                input.subdata(in: Int(position)..<Swift.min(Int(position) + size, input.count))
            },
            consumer: { output.append($0) })
        return output
    }
}

extension SeededRandom {
    /// `base` with a few insertions, deletions and substitutions.
    mutating func edited(_ base: [UInt8]) -> [UInt8] {
        var result = base
        for _ in 0..<Int(next() % 12 + 1) {
            let at = result.isEmpty ? 0 : Int(next() % UInt64(result.count))
            switch next() % 3 {
            case 0: result.insert(contentsOf: bytes(Int(next() % 40) + 1), at: at)
            case 1: result.removeSubrange(at..<Swift.min(result.count, at + Int(next() % 40)))
            default: if at < result.count { result[at] &+= 1 }
            }
        }
        return result
    }
}
