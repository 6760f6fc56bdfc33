import Foundation

/// An executable SwiftPM built beside the test bundle (the test target depends on it, so it is there).
func builtExecutable(named name: String) -> URL? {
    var candidates: [URL] = []
    if let executable = Bundle.main.executableURL { candidates.append(executable) }
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]))
    for start in candidates {
        var directory = start.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
    }
    return nil
}
