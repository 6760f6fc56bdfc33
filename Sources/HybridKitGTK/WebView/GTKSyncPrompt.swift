#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit

/// A prompt the web-process extension opened for a frame (`__hybridFrameSync` in WebProcessExtension/frame_stamp.c):
/// `<secret>\n<security origin>\n<1 for the main frame, else 0>\n<document URI>\n<text>`.
///
/// The secret reaches the web processes as initialization data and never a page, so a prompt that starts with
/// it was made by the extension, and the frame it names is the one the engine knows, as for frame posts.
struct GTKSyncPrompt {
    let frame: FrameInfo
    let text: String

    /// Nil when `message` does not start with `secret` and a newline (a page's own prompt) or is malformed.
    init?(_ message: String, secret: String) {
        guard !secret.isEmpty, message.hasPrefix(secret + "\n") else { return nil }
        let fields = message.dropFirst(secret.count + 1).split(
            separator: "\n", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, fields[1] == "0" || fields[1] == "1" else { return nil }
        frame = FrameInfo(
            url: URL(string: String(fields[2])), securityOrigin: String(fields[0]), isMainFrame: fields[1] == "1")
        text = String(fields[3])
    }
}

extension ScriptDialog.Kind {
    var isPrompt: Bool {
        if case .prompt = self { return true }
        return false
    }
}
#endif
