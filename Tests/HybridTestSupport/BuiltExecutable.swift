import Foundation

/// An executable SwiftPM built beside the test bundle (the test target depends on it, so it is there): looked
/// for next to the running test binary and up to three folders above it, then in the package's `.build/debug`.
public func builtExecutable(named name: String) -> URL? {
    var candidates: [URL] = []
    if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    candidates.append(packageRoot.appendingPathComponent(".build/debug"))
    for start in candidates {
        var directory = start
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
    }
    return nil
}
