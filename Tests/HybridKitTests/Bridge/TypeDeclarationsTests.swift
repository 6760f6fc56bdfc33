import Foundation
import HybridTestSupport
import Testing

/// `hybrid.d.ts` is checked with TypeScript (`tsc --noEmit --strict`): the declarations themselves, a page that
/// uses every page-facing API (TypeScript/typed-page.ts, which must check clean) and a page full of mistakes
/// (TypeScript/mistyped-page.ts, whose every marked line must be reported). tsc comes from Debian's
/// `node-typescript` package, which scripts/install-deps.sh installs; without it these tests fail.
@Suite(.timeLimit(.minutes(3))) struct TypeDeclarationsTests {
    /// This file is at Tests/HybridKitTests/Bridge/.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let declarations = packageRoot.appendingPathComponent("Sources/HybridKit/Bridge/Types/hybrid.d.ts")
    static let pages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("TypeScript")

    /// tsc on PATH (or where Debian puts it).
    static func tsc() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        return directories.map { URL(fileURLWithPath: $0).appendingPathComponent("tsc") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Copies the declarations and `page` into a fresh folder (the page imports './hybrid', as a user's would)
    /// and type-checks them. Returns tsc's exit status and its diagnostics (stdout and stderr).
    func check(page: String) async throws -> (status: Int32, diagnostics: String) {
        let tsc = try #require(
            Self.tsc(),
            "tsc (TypeScript) is not installed: run scripts/install-deps.sh (Debian package node-typescript)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-dts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Self.declarations, to: folder.appendingPathComponent("hybrid.d.ts"))
        try FileManager.default.copyItem(
            at: Self.pages.appendingPathComponent(page), to: folder.appendingPathComponent(page))

        // In the folder, so diagnostics name the files as the page's author would see them; off Swift's
        // cooperative pool, which a test waiting for a child must not hold (see ChildProcess).
        let run = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            arguments: [
                "-c", #"cd "$0" && exec "$@" 2>&1"#, folder.path, tsc.path, "--noEmit", "--strict", "--pretty", "false",
                "--target", "es2020", "--lib", "es2020,dom", "hybrid.d.ts", page,
            ])
        return (run.exitStatus ?? -1, String(decoding: run.standardOutput, as: UTF8.self))
    }

    @Test func theDeclarationsAndAPageUsingEveryAPICheckClean() async throws {
        let result = try await check(page: "typed-page.ts")
        #expect(result.status == 0, "tsc exited with \(result.status)")
        #expect(result.diagnostics.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(result.diagnostics)")
    }

    @Test func aMistypedPageFailsOnEveryMistake() async throws {
        let source = try String(contentsOf: Self.pages.appendingPathComponent("mistyped-page.ts"), encoding: .utf8)
        let marked = Set(
            source.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                .filter { $0.element.hasSuffix("// error") }.map { $0.offset + 1 })
        #expect(marked.count >= 10)

        let result = try await check(page: "mistyped-page.ts")
        #expect(result.status != 0, "tsc accepted the mistyped page")
        // Diagnostics read `mistyped-page.ts(<line>,<column>): error TS…`.
        let reported = Set(
            result.diagnostics.split(separator: "\n").compactMap { line -> Int? in
                guard line.hasPrefix("mistyped-page.ts("), let comma = line.firstIndex(of: ",") else { return nil }
                return Int(line[line.index(line.startIndex, offsetBy: "mistyped-page.ts(".count)..<comma])
            })
        #expect(
            marked.subtracting(reported).isEmpty,
            "mistakes tsc did not report: \(marked.subtracting(reported).sorted())")
        #expect(reported.subtracting(marked).isEmpty, "unexpected diagnostics:\n\(result.diagnostics)")
        #expect(!result.diagnostics.contains("hybrid.d.ts("), "the declarations themselves have errors")
    }

    /// Every global the injected scripts define for pages is declared.
    @Test func everyGlobalTheRuntimeDefinesIsDeclared() async throws {
        // The bridge runtime and the request hooks are folders of files joined into one script each.
        let folders = ["Sources/HybridKit/Bridge/BridgeRuntime", "Sources/HybridKit/RequestBodies/HooksRuntime"]
        var scripts = ["Sources/HybridKit/Cookies/CookieRuntime/document-cookie.js"]
        for folder in folders {
            let names = try FileManager.default.contentsOfDirectory(
                atPath: Self.packageRoot.appendingPathComponent(folder).path)
            scripts += names.filter { $0.hasSuffix(".js") }.map { "\(folder)/\($0)" }
        }
        #expect(scripts.count > 10, "\(scripts)")
        let pattern = try Regex(#"defineProperty\((?:window|win), '([A-Za-z_$][\w$]*)'"#)
        var globals: Set<String> = []
        for script in scripts {
            let text = try String(contentsOf: Self.packageRoot.appendingPathComponent(script), encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { globals.insert(String(name)) }
            }
        }
        #expect(globals == ["hybrid", "WebViewJavascriptBridge", "WVJBCallbacks", "hybridCookies", "__hybridRequests"])
        let declarations = try String(contentsOf: Self.declarations, encoding: .utf8)
        for name in globals {
            #expect(
                declarations.contains("readonly \(name)?:") || declarations.contains("readonly \(name):")
                    || declarations.contains("\(name)?:"),
                "\(name) is not declared on Window in hybrid.d.ts")
        }
    }
}
