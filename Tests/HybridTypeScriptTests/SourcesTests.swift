import Foundation
import HybridTestSupport
import Testing

@testable import HybridTypeScript

/// Reading sources: files and folders as named, clear errors otherwise, and no crash on any Swift, including the
/// repository's own sources and text that is not Swift at all.
@Suite struct SourcesTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-types-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func foldersAreSearchedInPathOrderSkippingHiddenOnes() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for path in ["b/Second.swift", "a/First.swift", ".build/checkouts/Hidden.swift", "a/notes.md"] {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("// \(path)\n".utf8).write(to: url)
        }
        let sources = try SwiftSource.read([folder.path])
        #expect(sources.map(\.path) == [folder.path + "/a/First.swift", folder.path + "/b/Second.swift"])
        #expect(sources.first?.text == "// a/First.swift\n")
        // A file named twice is read once.
        #expect(try SwiftSource.read([folder.path + "/a/First.swift", folder.path]).count == 2)
    }

    @Test func pathsItCannotUseAreTypedErrorsThatSayWhatToDo() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("x".utf8).write(to: folder.appendingPathComponent("notes.md"))
        #expect(throws: TypeScriptGeneratorError.noSources) { try SwiftSource.read([]) }
        #expect(throws: TypeScriptGeneratorError.missing(path: folder.path + "/nope")) {
            try SwiftSource.read([folder.path + "/nope"])
        }
        #expect(throws: TypeScriptGeneratorError.notSwift(path: folder.path + "/notes.md")) {
            try SwiftSource.read([folder.path + "/notes.md"])
        }
        #expect(throws: TypeScriptGeneratorError.noSwiftFiles(path: folder.path)) {
            try SwiftSource.read([folder.path])
        }
        #expect(
            TypeScriptGeneratorError.noSwiftFiles(path: "x").description.contains("name the folder of your modules"))
    }

    /// The repository's own Swift: every kind of declaration this package writes, modules whose names are not
    /// literals, builders handed around. It must come out as declarations tsc accepts and warnings, never a crash.
    @Test func theRepositorysOwnSourcesAreReadWithoutACrash() async throws {
        let sources = try SwiftSource.read([
            Self.packageRoot.appendingPathComponent("Sources").path,
            Self.packageRoot.appendingPathComponent("Tests").path,
        ])
        #expect(sources.count > 300)
        let output = try await offThePool { ModuleTypes.generate(sources) }
        #expect(output.modules.contains("tour") && output.modules.contains("shop"), "\(output.modules)")
        #expect(output.declarations.contains("declare module './hybrid'"))
        #expect(!output.warnings.contains { $0.message.contains("does not parse") }, "\(output.warnings)")
        let (status, diagnostics) = try await Self.typeCheck(["modules.d.ts": output.declarations])
        #expect(status == 0, "tsc: \(diagnostics)")
    }

    /// tsc --strict on hybrid.d.ts and `files` (name → text) in a fresh folder: its exit status and diagnostics.
    static func typeCheck(_ files: [String: String]) async throws -> (Int32, String) {
        let tsc = try #require(
            ["/usr/bin/tsc", "/usr/local/bin/tsc"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "tsc (TypeScript) is not installed: run scripts/install-deps.sh (Debian package node-typescript)")
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: packageRoot.appendingPathComponent("Sources/HybridKit/Bridge/Types/hybrid.d.ts"),
            to: folder.appendingPathComponent("hybrid.d.ts"))
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        // In the folder, so diagnostics name the files; off Swift's cooperative pool (see ChildProcess).
        let run = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            arguments: [
                "-c", #"cd "$0" && exec "$@" 2>&1"#, folder.path, tsc, "--noEmit", "--strict", "--pretty", "false",
                "--target", "es2020", "--lib", "es2020,dom", "hybrid.d.ts",
            ] + files.keys.sorted())
        return (run.exitStatus ?? -1, String(decoding: run.standardOutput, as: UTF8.self))
    }

    /// Text that is not Swift, and Swift no one writes but that makes swift-syntax recurse as deep as it goes or
    /// take exponential time: warnings, never a crash or a hang.
    @Test func textThatIsNotSwiftOrNestsWithoutEndIsAWarningNotACrash() async throws {
        var random = SeededRandom(seed: 26)
        let cases = [
            ("Garbage.swift", String(decoding: random.bytes(4096), as: UTF8.self), "does not parse"),
            (
                "Broken.swift",
                "let m = BridgeModule(\"x\", access: .anyPage) { module in module.method(\"a\") { (a: Int, _) -> [ in",
                "does not parse"
            ),
            ("Brackets.swift", "let x = " + String(repeating: "[ ", count: 2000), "square brackets in a row"),
            ("Large.swift", "let x = a" + String(repeating: ".b", count: 80_000), "too large to parse safely"),
            // Deep, but within what the generator's own stack holds.
            ("Tries.swift", "let x = " + String(repeating: "try ", count: 20_000) + "1", nil),
            ("Chain.swift", "let x = a" + String(repeating: ".b", count: 20_000), nil),
            ("Generics.swift", "let x: " + String(repeating: "A<", count: 10_000), "does not parse"),
        ]
        let sources = cases.map { SwiftSource(path: $0.0, text: $0.1) }
        // Seconds of parsing: off Swift's cooperative pool, which the other tests need.
        let output = try await offThePool { ModuleTypes.generate(sources) }
        for (path, _, expected) in cases {
            let said = output.warnings.filter { $0.position.file == path }.map(\.message)
            if let expected {
                #expect(said.contains { $0.contains(expected) }, "\(path): \(said)")
            } else {
                #expect(said.isEmpty, "\(path): \(said)")
            }
        }
        #expect(output.declarations.hasPrefix("// Generated by `hybrid types`"))
        #expect(output.modules == ["x"])
    }

    /// The declarations of every shape the generator writes, with hybrid.d.ts and a page that uses them, pass
    /// `tsc --strict`: they are TypeScript, and they type the proxy as the page expects.
    @Test func theDeclarationsTypeCheckWithTheirPage() async throws {
        let generated = ModuleTypes.generate([SwiftSource(path: "Shop.swift", text: GeneratorTests.shop)])
        let page = """
            import type { Item, Summary, Event, Kind } from './modules';
            async function page(): Promise<void> {
              const shop = hybrid.module('shop');
              const item: Item = {
                sku: 'sencha', price: 6.5, tags: [], added: 0, link: 'https://shop.example/sencha', thumbnail: new Uint8Array(0),
                id: 'A', sizes: { small: 1 }, byShelf: {}, kind: 'tea-pot', a: 1, b: 2, count: 0, watched: 0, unique: [],
              };
              const summary: Summary = await shop.add(item);
              const top: number | undefined = summary.byShelf.top;
              const size: 1 | 2 | 10 | 11 = summary.size;
              const first: string = summary.renamed.first_name;
              const page: Item[] = shop.page.sync(2).items;
              const found: Item | null = await shop.find();
              for await (const event of shop.events.stream()) {
                if ('removed' in event) console.log(event.removed.sku, event.removed.count ?? 0);
              }
              const kind: Kind = 'cup';
              const pong: string = await hybrid.module('util').ping();
              const named: string = await shop['user-name']();
              console.log(top, size, first, page, found, kind, pong, named);
            }
            void page;
            """
        let (status, diagnostics) = try await Self.typeCheck([
            "modules.d.ts": generated.declarations, "page.ts": page,
        ])
        #expect(status == 0, "tsc: \(diagnostics)\n\(generated.declarations)")
    }
}
