import Testing

@testable import HybridTypeScript

/// What the generator cannot type becomes `unknown`, never a guess, with a warning naming the line and the fix.
@Suite struct UntypedTests {
    static let sources = #"""
        import HybridKit

        struct Custom: Codable {
            var value: Int
            func encode(to encoder: any Encoder) throws {}
        }
        struct Wrapped: Codable {
            @Clamped var level: Int
            var guess = makeGuess()
        }
        struct Point: Hashable, Codable { var x: Int }
        struct Shapes: Codable {
            var byPoint: [Point: String]
            var pair: (Int, Int)
            var elsewhere: Elsewhere
        }

        let untyped = BridgeModule("untyped", access: .anyPage) { module in
            module.method("inferred") { args, _ in args }
            module.method("noResult") { (value: Int, _) in value }
            module.method("custom") { (_: NoArguments, _) -> Custom in fatalError() }
            module.method("wrapped") { (_: NoArguments, _) -> Wrapped in fatalError() }
            module.method("shapes") { (_: NoArguments, _) -> Shapes in fatalError() }
            module.stream("mapped") { (_: NoArguments, _) -> AsyncMapSequence<AsyncStream<Int>, String> in fatalError() }
            module.method("handler", handle)
            module.method("then") { (_: NoArguments, _) -> Int in 1 }
            module.forward("gone", to: "missing")
            module.event("tick")
            register(&module)
            for name in ["a", "b"] { module.method(name) { (_: NoArguments, _) -> Int in 1 } }
        }
        let named = BridgeModule(moduleName, access: .anyPage) { module in }
        let untypedAgain = BridgeModule("untyped", access: .anyPage) { module in }
        """#

    static let output = ModuleTypes.generate([SwiftSource(path: "Sources/App/Untyped.swift", text: sources)])

    /// The warnings on `line`.
    func warnings(on line: Int) -> [String] {
        Self.output.warnings.filter { $0.position.line == line }.map(\.message)
    }

    func expectWarning(on line: Int, _ fragments: String..., sourceLocation: SourceLocation = #_sourceLocation) {
        let found = warnings(on: line)
        #expect(
            found.contains { message in fragments.allSatisfy { message.contains($0) } },
            "no warning on line \(line) with \(fragments): \(found)", sourceLocation: sourceLocation)
    }

    @Test func everyWarningReadsAsACompilerDiagnosticAndNamesItsFix() {
        #expect(Self.output.warnings.count == 17, "\(Self.output.warnings.map(\.description))")
        for warning in Self.output.warnings {
            #expect(warning.description.hasPrefix("Sources/App/Untyped.swift:\(warning.position.line): warning: "))
        }
        #expect(Self.output.warnings.map(\.position) == Self.output.warnings.map(\.position).sorted())
    }

    @Test func closuresWhoseTypesAreInferredAreUnknown() {
        expectWarning(
            on: 19, "untyped.inferred", "argument and result type is inferred",
            "{ (args: Arguments, _) -> Result in … }")
        expectWarning(on: 20, "untyped.noResult", "result type is inferred", "{ (value: Int, _) -> Result in … }")
        expectWarning(on: 25, "untyped.handler", "not a closure written here")
        let methods = GeneratorTests.code(
            GeneratorTests.block(Self.output.declarations, from: "export interface UntypedModule"))
        #expect(methods.contains("  inferred(args: unknown): Promise<unknown>;"), "\(methods)")
        #expect(methods.contains("  noResult(value: number): Promise<unknown>;"))
        #expect(methods.contains("  handler(args: unknown): Promise<unknown>;"))
        #expect(Self.output.declarations.contains("not typed: its closure's argument and result type is inferred"))
    }

    @Test func typesWithAShapeOfTheirOwnAreUnknown() {
        expectWarning(on: 3, "Custom is unknown", "encodes or decodes itself (Sources/App/Untyped.swift:5)")
        #expect(Self.output.declarations.contains("export type Custom = unknown;"))
        expectWarning(on: 8, "property 'level' of Wrapped", "@Clamped")
        expectWarning(on: 9, "property 'guess' of Wrapped has no type annotation", "var guess: Type = …")
        #expect(
            Self.output.declarations.contains(
                "export interface Wrapped {\n  /** wrapped by @Clamped. */\n  level: unknown;"))
        expectWarning(on: 13, "dictionary keyed by `Point`", "array of alternating keys and values")
        expectWarning(on: 14, "`(Int, Int)`", "no JSON shape")
        expectWarning(on: 15, "`Elsewhere`", "not declared in the sources given", "add the file or folder")
        #expect(
            GeneratorTests.block(Self.output.declarations, from: "export interface Shapes")
                == [
                    "export interface Shapes {", "  byPoint: unknown;", "  pair: unknown;", "  elsewhere: unknown;",
                    "}",
                ])
        expectWarning(on: 24, "untyped.mapped returns `AsyncMapSequence", "AsyncStream<Element>")
        #expect(Self.output.declarations.contains("  mapped(): HybridStream<unknown>;"))
    }

    @Test func registrationsItCannotReadAreNamed() {
        expectWarning(on: 26, "untyped.then cannot be called through hybrid.module('untyped')", "hybrid.call")
        expectWarning(on: 27, "untyped.gone forwards to missing.gone", "add the file that declares module 'missing'")
        expectWarning(on: 28, "module.event(…) of module 'untyped' is not a registration")
        expectWarning(on: 29, "hands its builder to other code")
        expectWarning(on: 30, "whose name is not a string literal is left out")
        expectWarning(on: 32, "BridgeModule whose name is not a string literal is left out")
        expectWarning(on: 33, "module 'untyped' is declared again (first at Sources/App/Untyped.swift:18)")
        #expect(Self.output.modules == ["untyped"])
    }

    @Test func aNameDeclaredTwiceOrGenericArgumentsLeftOutAreUnknown() {
        let output = ModuleTypes.generate([
            SwiftSource(
                path: "Twice.swift",
                text: """
                    struct Page<Element: Codable>: Codable { var items: [Element]; var next: Page? }
                    enum Shop {
                        static func first() { struct Args: Codable { var a: Int } }
                        static func second() { struct Args: Codable { var b: String } }
                        static let module = BridgeModule("shop", access: .anyPage) { module in
                            module.method("x") { (args: Args, _) -> Page<Int> in fatalError() }
                            module.method("y") { (count: Int, _) -> Page in fatalError() }
                        }
                    }
                    """)
        ])
        #expect(output.warnings.count == 2, "\(output.warnings)")
        #expect(
            output.warnings.first?.description
                == "Twice.swift:6: warning: the argument of shop.x is `Args`, and Shop.Args is declared 2 times "
                + "(Twice.swift:3, Twice.swift:4; types inside functions count as declared beside them), so it is "
                + "unknown: give them distinct names")
        #expect(output.warnings.last?.position.line == 7)
        #expect(output.warnings.last?.message.contains("generic arguments do not match Page's parameters") == true)
        #expect(output.declarations.contains("  x(args: unknown): Promise<Page<number>>;"))
        #expect(output.declarations.contains("  y(count: number): Promise<unknown>;"))
        // Inside its own declaration, `Page` is `Page<Element>`.
        #expect(output.declarations.contains("  next?: Page<Element>;"))
    }

    @Test func noModuleAtAllIsSaidAndStillWritesAModule() {
        let output = ModuleTypes.generate([SwiftSource(path: "Empty.swift", text: "struct Nothing {}")])
        #expect(
            output.warnings.map(\.message) == [
                "no BridgeModule(\"name\", …) { module in … } in the 1 file(s) given: name the files or folders that declare your modules"
            ])
        #expect(output.declarations.hasSuffix("export {};\n"))
    }
}
