/// A small deterministic generator (SplitMix64), so failures reproduce.
public struct SeededRandom {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

/// About 40 KB of minified-looking JavaScript, the same for a seed except the chunk it imports and a few edits:
/// what a front-end build's hashed bundles look like from one release to the next.
public enum MinifiedBundle {
    public static func text(seed: UInt64, importing chunk: String, edit: String) -> String {
        var random = SeededRandom(seed: seed)
        let words = ["const", "return", "function", "await", "import", "export", "this", "props", "state", "render"]
        var text = ""
        for index in 0..<1500 {
            let word = words[Int(random.next() % UInt64(words.count))]
            let number = random.next() % 100_000
            text += "\(word) a\(number)=b\(index);"
            if index % 300 == 0 { text += "import(\"./\(chunk)\");/*\(edit)*/" }
        }
        return text
    }
}
