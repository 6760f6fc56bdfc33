import Foundation
import Testing

@testable import HybridKit

/// The bridge runtime and the request hooks are folders of JavaScript files (Bridge/BridgeRuntime, RequestBodies/HooksRuntime) that
/// their loaders join into one script with one closure. A file in the folder that no loader lists would be shipped
/// and silently never run; a listed file missing from the bundle would leave every page without the runtime.
@Suite struct PageRuntimeFilesTests {
    /// The runtime folders of the built resource bundle, each with a file it must hold.
    static let folders = [("BridgeRuntime", "transport"), ("HooksRuntime", "core")]

    /// `folder` in the built resource bundle, found through `anyFile` in it.
    func bundled(_ folder: String, beside anyFile: String) throws -> URL {
        let url = try #require(
            PackageResources.url(forResource: anyFile, withExtension: "js", subdirectory: folder),
            "\(folder)/\(anyFile).js is in the bundle")
        return url.deletingLastPathComponent()
    }

    /// The names (without `.js`) of the scripts in `folder` of the built resource bundle.
    func bundledFiles(_ folder: String, beside anyFile: String) throws -> Set<String> {
        let names = try FileManager.default.contentsOfDirectory(atPath: try bundled(folder, beside: anyFile).path)
        return Set(names.filter { $0.hasSuffix(".js") }.map { String($0.dropLast(3)) })
    }

    @Test func theBridgeLoaderListsEveryFileOfItsFolderOnce() throws {
        let listed = BridgeRuntimeScript.files
        #expect(Set(listed).count == listed.count)
        #expect(try bundledFiles("BridgeRuntime", beside: "transport") == Set(listed))
        let sources = try BridgeRuntimeScript.sources.get()
        #expect(sources.count == listed.count)
    }

    @Test func theHooksLoaderListsEveryFileOfItsFolderOnce() throws {
        let listed = RequestHooksScript.closureFiles + RequestHooksScript.realmFiles
        #expect(Set(listed).count == listed.count)
        #expect(try bundledFiles("HooksRuntime", beside: "core") == Set(listed))
        #expect(RequestHooksScript.assembled != nil)
    }

    /// Each runtime stays one closure: the files are joined in the loader's order, and the first statement of the
    /// closure's body is still the `'use strict'` directive (a directive anywhere else is an ordinary string).
    @Test func theJoinedScriptsAreOneStrictClosureInTheListedOrder() throws {
        let bridge = try BridgeRuntimeScript.make(
            configuration: BridgeConfiguration(), relaySecret: "r", deliveryKey: "d", syncKey: "s", runtimeID: "i")
        let hooks = try RequestHooksScript.source(
            config: InterceptionConfig(), schemes: ["hybrid"], switches: InterceptionSwitches(), bodyKey: "k")
        for (script, texts) in [
            (bridge, try BridgeRuntimeScript.sources.get()),
            (hooks, try loadedHookFiles()),
        ] {
            #expect(script.hasPrefix("(function (config) {\n"))
            var rest = script[...]
            for text in texts {
                let found = try #require(rest.range(of: text), "a file is missing or out of order")
                rest = rest[found.upperBound...]
            }
            let statements = script.split(separator: "\n").dropFirst()
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("//") }
            #expect(statements.first == "'use strict';")
        }
    }

    /// The issue that split the runtime into files asked for none over about 400 lines: past that, split it by what
    /// it does, as the others are.
    @Test func noRuntimeFileIsOverFourHundredLines() throws {
        for (folder, anyFile) in Self.folders {
            let directory = try bundled(folder, beside: anyFile)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
                #expect(lines <= 400, "\(folder)/\(name) has \(lines) lines")
            }
        }
    }

    private func loadedHookFiles() throws -> [String] {
        try (RequestHooksScript.closureFiles + RequestHooksScript.realmFiles).map { name in
            let url = try #require(
                PackageResources.url(forResource: name, withExtension: "js", subdirectory: "HooksRuntime"))
            return try String(contentsOf: url, encoding: .utf8)
        }
    }
}
