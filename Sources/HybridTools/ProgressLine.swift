import Foundation
import HybridPackages
import Synchronization

/// Prints package progress to standard error: one line rewritten in place on a terminal, otherwise one line
/// per quarter, so logs of CI runs stay short. Standard output is left for the results.
final class ProgressLine: Sendable {
    private let interactive = isatty(STDERR_FILENO) != 0
    private let lastQuarter = Mutex<Int>(-1)
    private let wroteInPlace = Mutex<Bool>(false)

    var handler: PackageProgressHandler { { [self] in report($0) } }

    func report(_ progress: PackageProgress) {
        let percent = Int(progress.fraction * 100)
        let text =
            "\(progress.phase.rawValue) \(percent)% (\(progress.completedBytes)/\(progress.totalBytes) bytes)"
            + (progress.path.map { " \($0)" } ?? "")
        if interactive {
            wroteInPlace.withLock { $0 = true }
            write("\r\u{1B}[K" + text)
        } else {
            let quarter = percent / 25
            let isNew = lastQuarter.withLock { last in
                defer { last = max(last, quarter) }
                return quarter > last
            }
            if isNew { write(text + "\n") }
        }
    }

    /// Ends the in-place line so the summary starts on a fresh one.
    func finish() {
        if wroteInPlace.withLock({ $0 }) { write("\n") }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
