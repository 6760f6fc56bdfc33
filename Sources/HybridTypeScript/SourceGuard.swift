/// Files swift-syntax 602 cannot be trusted with, found by a lexical scan before parsing: what it would take
/// exponential time or more stack than ``LargeStack`` gives on. Such a file is skipped with a warning.
enum SourceGuard {
    /// Consecutive `[` (whitespace between them allowed): the parser's look-ahead for inline-array types doubles
    /// its work with each one (18 take seconds in a debug build, 24 minutes). Real code nests a few.
    static let maximumBracketRun = 12
    /// Tokens, counted generously (each punctuation character, each run of letters or digits): each can add a level
    /// of recursion, and a level costs up to about 5 KiB of stack in a debug build, so this keeps the deepest
    /// file well inside the stack. About 700 KB of ordinary Swift.
    static let maximumTokens = 150_000

    /// Why `text` is skipped, or nil when it can be parsed.
    static func problem(in text: String) -> String? {
        var tokens = 0
        var bracketRun = 0
        var longestRun = 0
        var inWord = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case " ", "\t", "\n", "\r":
                inWord = false
            case "[":
                inWord = false
                tokens += 1
                bracketRun += 1
                longestRun = max(longestRun, bracketRun)
            default:
                bracketRun = 0
                let wordy = scalar == "_" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                if !wordy || !inWord { tokens += 1 }
                inWord = wordy
            }
        }
        if longestRun > maximumBracketRun {
            return "it opens \(longestRun) square brackets in a row, which swift-syntax takes exponential time to "
                + "parse; it is skipped: name only the files that declare your modules and their types"
        }
        if tokens > maximumTokens {
            return "it is too large to parse safely (about \(tokens) tokens, over \(maximumTokens)); it is skipped: "
                + "name only the files that declare your modules and their types"
        }
        return nil
    }
}
