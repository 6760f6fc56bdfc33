#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
// Helper for the exit-status test: a minimal app that starts the headless runtime, asks a page for a value,
// prints it and exits 0. Its exit status and output must be its own, run after run. With `--shut-down` it stops
// the runtime first (GTKRuntime.shutDown) and prints whether the runtime then refuses to start again. With
// `--engine-thread` it runs engine-isolated work before GTK exists too, and prints whether GTK took over that
// same thread.
import Foundation
import HybridKitGTK

/// Loads a page and reads a value it computes once loaded; nil if it never does.
@GTKActor func askAPage() async -> String? {
    let view = GTKWebView()
    defer { view.close() }
    view.loadHTML("<title>exit</title><p>exit status", baseURL: URL(string: "https://exit.example/"))
    for _ in 0..<200 {
        if let answer = try? await view.evaluateJavaScript("document.readyState === 'complete' ? 6 * 7 : null"),
            answer == "42"
        {
            return answer
        }
        try? await Task.sleep(for: .milliseconds(25))
    }
    return nil
}

// Engine-isolated work before GTK exists runs on the engine thread's own job loop.
let threadBeforeGTK = await GTKActor.run { pthread_self() }
do {
    try GTKRuntime.shared.start(.headless)
} catch {
    FileHandle.standardError.write(Data("cannot start GTK: \(error)\n".utf8))
    exit(2)
}
let answer = await askAPage()
if CommandLine.arguments.contains("--engine-thread") {
    let threadWithGTK = await GTKActor.run { pthread_self() }
    print(threadWithGTK == threadBeforeGTK ? "one engine thread" : "GTK runs on another thread")
}
// Printed without a flush: exit(0) flushes standard output, which goes to a pipe or a file here, fully buffered.
print("answer \(answer ?? "none") on display \(GTKRuntime.shared.displayName ?? "none")")
if CommandLine.arguments.contains("--shut-down") {
    GTKRuntime.shared.shutDown()
    do {
        try GTKRuntime.shared.start(.headless)
        print("started again after shutDown")
    } catch {
        print("after shutDown: \(error)")
    }
}
exit(answer == nil ? 3 : 0)
#else
// A Mac builds every target; this helper of the WebKitGTK tests has nothing to run there.
import Foundation

#if os(Linux) && !HYBRIDKIT_APPLE_LAYOUT
#error("gtk-exit-child is built on Linux without WebKitGTK: Package.swift must give it HybridKitGTK on Linux")
#endif
FileHandle.standardError.write(Data("gtk-exit-child drives WebKitGTK, which is Linux only\n".utf8))
exit(2)
#endif
