// Test helper for the crash-safety test: rewrites a cookie jar file as fast as it can, forever.
// Every saved state is self-consistent (all ten cookies carry the same generation number), so a
// reader can tell a complete state from a torn one. The test SIGKILLs this process mid-write.
import Foundation
import HybridCookies

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: cookie-writer <jar-file>\n".utf8))
    exit(2)
}
let store = FileCookieJarStore(fileURL: URL(fileURLWithPath: arguments[1]))
let jar = CookieJar(store: store)
guard let site = URL(string: "https://example.com/") else { exit(2) }
var generation = 0
while true {
    generation += 1
    for index in 0..<10 {
        // A long value makes each write take a while, widening the window for the kill to land mid-write.
        let padding = String(repeating: "x", count: 2000)
        jar.setCookie("c\(index)=\(generation)-\(padding); Max-Age=86400", for: .http(site))
    }
    do {
        try jar.flush()
    } catch {
        FileHandle.standardError.write(Data("flush failed: \(error)\n".utf8))
        exit(1)
    }
    if generation == 3 {
        FileHandle.standardOutput.write(Data("ready\n".utf8))
    }
}
