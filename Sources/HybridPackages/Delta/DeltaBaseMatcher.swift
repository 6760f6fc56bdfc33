/// Chooses, for a file of the new version, the file of the old version a delta is made against: the same path;
/// else the same path once content hashes are taken out of the name (`main.3f2a1c9b.js` → `main.js`, vite's
/// `index-BkD3fJ2a.js` → `index.js`), the most similar when several share it; else the most similar old file of the
/// same extension, if any is similar enough to be worth a delta.
public struct DeltaBaseMatcher: Sendable {
    /// Below this estimated resemblance a delta rarely beats the deflated file, so none is tried.
    public static let minimumSimilarity = 0.05

    private let oldPaths: [String]
    private let byStrippedPath: [String: [String]]
    private let byExtension: [String: [String]]
    private let sketches: [String: SimilaritySketch]
    private let oldPathSet: Set<String>

    /// - Parameter oldFiles: the old version's files by path (their bytes are sketched once, here).
    public init(oldFiles: [String: [UInt8]]) {
        oldPaths = oldFiles.keys.sorted()
        oldPathSet = Set(oldPaths)
        var stripped: [String: [String]] = [:]
        var extensions: [String: [String]] = [:]
        var sketches: [String: SimilaritySketch] = [:]
        for path in oldPaths {
            stripped[Self.strippedPath(path), default: []].append(path)
            extensions[Self.fileExtension(path), default: []].append(path)
            sketches[path] = SimilaritySketch(oldFiles[path] ?? [])
        }
        byStrippedPath = stripped
        byExtension = extensions
        self.sketches = sketches
    }

    /// The old path to encode `path` (with bytes `bytes`) against, or nil when no old file is a plausible base.
    public func base(for path: String, bytes: [UInt8]) -> String? {
        if oldPathSet.contains(path) { return path }
        let sketch = SimilaritySketch(bytes)
        if let candidates = byStrippedPath[Self.strippedPath(path)] {
            return mostSimilar(candidates, to: sketch, minimum: -1)
        }
        return mostSimilar(byExtension[Self.fileExtension(path)] ?? [], to: sketch, minimum: Self.minimumSimilarity)
    }

    private func mostSimilar(_ candidates: [String], to sketch: SimilaritySketch, minimum: Double) -> String? {
        var best: (path: String, score: Double)?
        for candidate in candidates {
            guard let other = sketches[candidate] else { continue }
            let score = sketch.similarity(to: other)
            if score > minimum, score > (best?.score ?? -1) { best = (candidate, score) }
        }
        return best?.path
    }

    /// The path with every content-hash-looking token removed from its last component.
    public static func strippedPath(_ path: String) -> String {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let name = components.last else { return path }
        var parts: [Substring] = []
        for dotted in name.split(separator: ".", omittingEmptySubsequences: false) {
            // Vite and Rollup join the hash with '-', webpack with '.' (and '~' in old chunk names).
            let dashed = dotted.split(separator: "-", omittingEmptySubsequences: false)
            let kept = dashed.enumerated().filter { index, token in index == 0 || !isContentHash(token) }.map(\.element)
            if dashed.count > 1 || !isContentHash(dotted) {
                parts.append(Substring(kept.joined(separator: "-")))
            }
        }
        let strippedName = parts.joined(separator: ".")
        return (components.dropLast().map(String.init) + [strippedName]).joined(separator: "/")
    }

    /// A token that looks like a content hash: 6–64 characters of a hash alphabet, not a plain word. Hex needs 8+
    /// characters and a digit or must be all hex; base64url-style (vite's 8 characters) needs a digit or mixed case.
    static func isContentHash<Token: StringProtocol>(_ token: Token) -> Bool {
        let scalars = token.unicodeScalars
        guard (6...64).contains(scalars.count) else { return false }
        var digits = 0
        var lower = 0
        var upper = 0
        var hexOnly = true
        for scalar in scalars {
            switch scalar {
            case "0"..."9": digits += 1
            case "a"..."f": lower += 1
            case "g"..."z":
                lower += 1
                hexOnly = false
            case "A"..."Z":
                upper += 1
                hexOnly = false
            case "_": hexOnly = false
            default: return false
            }
        }
        if hexOnly { return scalars.count >= 8 && (digits > 0 || scalars.count >= 12) }
        if digits == scalars.count { return scalars.count >= 8 }
        return digits > 0 && (lower > 0 || upper > 0) || (lower > 0 && upper > 1)
    }

    static func fileExtension(_ path: String) -> String {
        guard let name = path.split(separator: "/").last, let dot = name.lastIndex(of: ".") else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }
}

/// A bottom-k MinHash of a file's 8-byte shingles: estimates the resemblance (Jaccard) of two files from 128
/// numbers each, so choosing a base among hundreds of files costs no pairwise diffing.
struct SimilaritySketch: Sendable {
    static let size = 128
    static let shingle = 8
    let hashes: [UInt64]

    init(_ bytes: [UInt8]) {
        guard bytes.count >= Self.shingle else {
            hashes = bytes.isEmpty ? [] : [Self.mix(bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })]
            return
        }
        // A heap would be tighter; a sorted window of the smallest values rebuilt every so often is enough here.
        var smallest: [UInt64] = []
        smallest.reserveCapacity(Self.size * 4)
        var threshold = UInt64.max
        var word: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            word = word << 8 | UInt64(byte)
            guard index >= Self.shingle - 1 else { continue }
            let hash = Self.mix(word)
            guard hash < threshold else { continue }
            smallest.append(hash)
            if smallest.count >= Self.size * 4 {
                smallest = Array(Set(smallest)).sorted().prefix(Self.size).map { $0 }
                threshold = smallest.count == Self.size ? smallest[Self.size - 1] : UInt64.max
            }
        }
        hashes = Array(Set(smallest)).sorted().prefix(Self.size).map { $0 }
    }

    /// Estimated Jaccard resemblance in 0...1.
    func similarity(to other: SimilaritySketch) -> Double {
        if hashes.isEmpty || other.hashes.isEmpty { return hashes.isEmpty && other.hashes.isEmpty ? 1 : 0 }
        let union = Array(Set(hashes).union(other.hashes)).sorted().prefix(Self.size)
        let mine = Set(hashes)
        let theirs = Set(other.hashes)
        let shared = union.filter { mine.contains($0) && theirs.contains($0) }.count
        return Double(shared) / Double(union.count)
    }

    /// SplitMix64's finalizer: a fast, well-mixed 64-bit hash.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
