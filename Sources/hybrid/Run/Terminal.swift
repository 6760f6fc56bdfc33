import Foundation
import HybridKit

/// `hybrid run`'s output: one line per event, written at once (standard output is a file or a pipe as often
/// as a terminal, and `print` would hold it in a buffer there).
///
/// Page-controlled text (module and method names a page made up, URLs, messages) is escaped and cut short, so a
/// page cannot move the cursor, rewrite earlier lines or flood the terminal.
enum Terminal {
    static let maxField = 300

    /// One `write(2)` per line, unbuffered: lines from GTK's thread and the watcher never interleave mid-line.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func bridgeCall(_ record: BridgeCallRecord) {
        // The runtime's own modules (`hybrid.cookies`, which `document.cookie` long-polls) are plumbing, not the
        // app's calls: shown only when they fail.
        if record.module.hasPrefix("hybrid."), record.error == nil { return }
        let milliseconds =
            Double(record.duration.components.attoseconds) / 1e15
            + Double(record.duration.components.seconds) * 1000
        let outcome = record.error?.rawValue ?? "ok"
        let frame = record.isMainFrame ? "" : " (subframe)"
        line(
            "call    \(safe(record.module)).\(safe(record.method))  \(safe(record.origin))\(frame)  \(outcome)  "
                + String(format: "%.1f ms", milliseconds))
    }

    static func failedRequest(_ url: URL?, _ error: String) {
        line("failed  \(safe(url?.absoluteString ?? "(no URL)"))  \(safe(error))")
    }

    /// Control characters (C0, DEL, C1: ANSI escapes among them) as `\u{…}`; long text cut with `…`.
    static func safe(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if out.unicodeScalars.count >= maxField {
                out += "…"
                break
            }
            switch scalar.value {
            case 0..<0x20, 0x7F..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
