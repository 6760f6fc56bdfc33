import Foundation
import HybridTestSupport
import Testing

/// `hybrid types` on the Shop example: the declarations committed beside it (Examples/Shop/types/modules.d.ts) are
/// what its Swift declares now, a page typed by them checks clean, and a change to the Swift that the page does not
/// follow fails both the comparison and the page's type check: page and native cannot drift apart unnoticed.
@Suite(.timeLimit(.minutes(3))) struct ShopModuleTypesTests {
    static let shop = TypeDeclarationsTests.packageRoot.appendingPathComponent("Examples/Shop")
    static let committed = shop.appendingPathComponent("types/modules.d.ts")

    func hybrid() throws -> URL {
        try #require(builtExecutable(named: "hybrid"), "the hybrid executable was not built next to the tests")
    }

    /// Runs `command` with `arguments` in `folder`; its exit status and what it wrote (stdout, then stderr).
    func run(_ command: String, _ arguments: [String], in folder: URL) async throws -> (Int32, String, String) {
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", #"cd "$0" && exec "$@""#, folder.path, command] + arguments)
        return (
            result.exitStatus ?? -1, String(decoding: result.standardOutput, as: UTF8.self),
            String(decoding: result.standardError, as: UTF8.self)
        )
    }

    /// tsc on hybrid.d.ts, `declarations` (as modules.d.ts) and the shop page, together in a fresh folder.
    func typeCheckShopPage(against declarations: String) async throws -> (Int32, String) {
        let tsc = try #require(
            TypeDeclarationsTests.tsc(),
            "tsc (TypeScript) is not installed: run scripts/install-deps.sh (Debian package node-typescript)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shop-types-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: TypeDeclarationsTests.declarations, to: folder.appendingPathComponent("hybrid.d.ts"))
        try Data(declarations.utf8).write(to: folder.appendingPathComponent("modules.d.ts"))
        try FileManager.default.copyItem(
            at: TypeDeclarationsTests.pages.appendingPathComponent("shop-page.ts"),
            to: folder.appendingPathComponent("shop-page.ts"))
        let (status, output, errors) = try await run(
            tsc.path,
            [
                "--noEmit", "--strict", "--pretty", "false", "--target", "es2020", "--lib", "es2020,dom", "hybrid.d.ts",
                "modules.d.ts", "shop-page.ts",
            ], in: folder)
        return (status, output + errors)
    }

    @Test func theCommittedDeclarationsAreWhatTheShopsSwiftDeclares() async throws {
        let (status, output, errors) = try await run(
            try hybrid().path, ["types", "Sources/ShopCart", "--output", "types/modules.d.ts", "--check", "--strict"],
            in: Self.shop)
        let fix = "in Examples/Shop run `hybrid types Sources/ShopCart --output types/modules.d.ts`"
        #expect(status == 0, "Examples/Shop/types/modules.d.ts is out of date: \(fix): \(errors)")
        #expect(output == "types/modules.d.ts is up to date (modules: cart)\n")
        #expect(errors.isEmpty, "warnings: \(errors)")
    }

    @Test func theShopPageTypeChecksAgainstThem() async throws {
        let declarations = try String(contentsOf: Self.committed, encoding: .utf8)
        let (status, diagnostics) = try await typeCheckShopPage(against: declarations)
        #expect(status == 0 && diagnostics.isEmpty, "\(diagnostics)")
    }

    /// The cart's `price` renamed in Swift: the check fails, and the declarations written again make tsc report the
    /// page's every use of the old name.
    @Test func aSwiftChangeThePageDoesNotFollowFailsTheCheckAndThePage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shop-drift-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("Sources/ShopCart"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let swift = try String(
            contentsOf: Self.shop.appendingPathComponent("Sources/ShopCart/CartModule.swift"), encoding: .utf8)
        let renamed = swift.replacingOccurrences(
            of: "var sku: String, price: Double", with: "var sku: String, cost: Double")
        #expect(renamed != swift, "CartModule.swift no longer declares `var sku: String, price: Double`")
        try Data(renamed.utf8).write(to: folder.appendingPathComponent("Sources/ShopCart/CartModule.swift"))
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("types"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.committed, to: folder.appendingPathComponent("types/modules.d.ts"))

        let (checkStatus, _, checkErrors) = try await run(
            try hybrid().path, ["types", "Sources/ShopCart", "--output", "types/modules.d.ts", "--check"], in: folder)
        #expect(checkStatus != 0)
        #expect(checkErrors.contains("'types/modules.d.ts' no longer matches the Swift modules"), "\(checkErrors)")

        let (status, written, _) = try await run(try hybrid().path, ["types", "Sources/ShopCart"], in: folder)
        #expect(status == 0 && written.contains("  cost: number;"))
        let (tscStatus, diagnostics) = try await typeCheckShopPage(against: written)
        #expect(tscStatus != 0)
        let lines = diagnostics.split(separator: "\n").filter { $0.hasPrefix("shop-page.ts(") }
        #expect(lines.count == 3, "\(diagnostics)")
        // Each explained on its next line.
        #expect(
            diagnostics.components(separatedBy: "'price' does not exist in type 'Item'").count == 4, "\(diagnostics)")
    }
}
