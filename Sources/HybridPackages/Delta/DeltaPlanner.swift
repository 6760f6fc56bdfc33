/// Decides, for each changed file of a diff, whether it travels as a binary delta: only against a plausible base
/// (``DeltaBaseMatcher``) and only where the delta is at most 0.8× the deflated file, since below that margin the
/// decoding work and the base dependency buy too little.
struct DeltaPlanner {
    struct Choice {
        var base: String
        var baseSHA256: String
        var delta: [UInt8]
    }

    static let maximumRatio = 0.8

    private let oldFiles: [String: [UInt8]]
    private let oldEntries: [String: ManifestFileEntry]
    private let matcher: DeltaBaseMatcher

    init(oldFiles: [String: [UInt8]], oldEntries: [String: ManifestFileEntry]) {
        self.oldFiles = oldFiles
        self.oldEntries = oldEntries
        matcher = DeltaBaseMatcher(oldFiles: oldFiles)
    }

    func choose(path: String, bytes: [UInt8]) throws(DeltaError) -> Choice? {
        guard !bytes.isEmpty, let basePath = matcher.base(for: path, bytes: bytes),
            let base = oldFiles[basePath], let entry = oldEntries[basePath]
        else { return nil }
        guard base.count < DeltaEncoder.maximumInputSize, bytes.count < DeltaEncoder.maximumInputSize else {
            return nil
        }
        let delta = try DeltaEncoder().encode(base: base, target: bytes)
        let deflated = try DeltaCompression.deflatedSize(bytes)
        guard Double(delta.count) <= Self.maximumRatio * Double(deflated) else { return nil }
        return Choice(base: basePath, baseSHA256: entry.sha256, delta: delta)
    }
}
