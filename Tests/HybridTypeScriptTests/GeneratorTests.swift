import Testing

@testable import HybridTypeScript

/// `hybrid types` on sample sources: what each registration form and each Codable shape becomes.
@Suite struct GeneratorTests {
    /// A module with every registration form, and the types it uses in every shape JSONEncoder's defaults give.
    static let shop = #"""
        import Foundation
        import HybridKit

        enum Shop {
            struct Item: Codable, Sendable {
                var sku: String
                var price: Double
                var tags: [String] = []
                var note: String?
                var added: Date
                var link: URL
                var thumbnail: Data
                var id: UUID
                var sizes: [String: Int]
                var byShelf: [Int: [Item]]
                var kind: Kind
                var a, b: Int
                var count = 0
                var total: Double { price }
                static var shared = 1
                lazy var cache: Int = 0
                var watched: Int = 0 { didSet {} }
                var maybe: Optional<Int>
                var unique: Set<String>
            }
            enum Kind: String, Codable { case tea, pot = "tea-pot", cup }
            enum Size: Int, Codable { case small = 1, medium, large = 10, huge }
            enum Event: Codable {
                case added(Item)
                case removed(sku: String, count: Int?)
                case cleared
            }
            enum Shelf: String, Codable, CodingKeyRepresentable { case top, bottom }
            struct Renamed: Codable {
                var firstName: String
                var internalOnly: Int = 0
                var age: Int
                enum CodingKeys: String, CodingKey {
                    case firstName = "first_name"
                    case age
                }
            }
            struct Page<Element: Codable>: Codable {
                var items: [Element]
                var next: Int?
            }
            typealias Items = [Item]
            struct Summary: Codable {
                var count: Int
                var byShelf: [Shelf: Double]
                var size: Size
                var renamed: Renamed
            }

            static func module() -> BridgeModule {
                BridgeModule("shop", access: .anyPage) { module in
                    module.method("add") { (item: Item, _) throws -> Summary in fatalError() }
                    module.method("page", synchronous: true) { (page: Int, _) -> Page<Item> in fatalError() }
                    module.method("all") { (_: NoArguments, _) async throws -> Items in [] }
                    module.method("find") { (sku: String?, _) -> Item? in nil }
                    module.stream("events") { (_: NoArguments, _) -> AsyncStream<Event> in fatalError() }
                    module.stream("prices") { (shelf: Shelf, _) async throws -> AsyncThrowingStream<Double, any Error> in
                        fatalError()
                    }
                    module.stream("counts") { (_: NoArguments, _) -> some AsyncSequence<Int, Never> in fatalError() }
                    module.forward("legacyAdd", to: "shop", method: "add")
                    module.forward("ping", to: "util")
                    module.method("user-name") { (_: NoArguments, _) -> String in "" }
                }
            }
        }

        let util = BridgeModule("util", access: .anyPage) { m in
            m.method("ping") { (_: NoArguments, _) -> String in "pong" }
        }
        """#

    static func generate(_ text: String, path: String = "App.swift") -> ModuleTypes.Output {
        ModuleTypes.generate([SwiftSource(path: path, text: text)])
    }

    /// The lines of `declarations` from the one starting with `start` to the first that is `end` (both kept).
    static func block(_ declarations: String, from start: String, to end: String = "}") -> [String] {
        let lines = declarations.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.firstIndex(where: { $0.hasPrefix(start) }) else { return [] }
        guard let last = lines[first...].firstIndex(where: { $0 == end }) else { return Array(lines[first...]) }
        return Array(lines[first...last])
    }

    /// The block without its comment lines.
    static func code(_ lines: [String]) -> [String] {
        lines.filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("/**") }
    }

    @Test func everyRegistrationFormIsAMethodOfTheModulesInterface() {
        let output = Self.generate(Self.shop)
        #expect(output.warnings.isEmpty, "\(output.warnings)")
        #expect(output.modules == ["shop", "util"])
        #expect(
            Self.code(Self.block(output.declarations, from: "export interface ShopModule"))
                == [
                    "export interface ShopModule {",
                    "  add(item: Item): Promise<Summary>;",
                    "  page(page: number): HybridSynchronous<Page<Item>>;",
                    "  all(): Promise<Item[]>;",
                    "  find(sku?: string | null): Promise<Item | null>;",
                    "  events(): HybridStream<Event>;",
                    "  prices(shelf: Shelf): HybridStream<number>;",
                    "  counts(): HybridStream<number>;",
                    "  legacyAdd(item: Item): Promise<Summary>;",
                    "  ping(): Promise<string>;",
                    "  \"user-name\"(): Promise<string>;",
                    "}",
                ])
        #expect(output.declarations.contains("  /** `shop.add`. */\n  add(item: Item): Promise<Summary>;"))
        #expect(output.declarations.contains("/** `shop.ping`: forwards to util.ping. */"))
        #expect(output.declarations.contains("/** The native module `shop` (App.swift). */"))
        #expect(
            output.declarations.contains(
                "import type { HybridBytes, HybridStream, HybridSynchronous } from './hybrid';"))
        #expect(
            Self.block(output.declarations, from: "declare module './hybrid'")
                == [
                    "declare module './hybrid' {", "  interface HybridModules {", "    shop: ShopModule;",
                    "    util: UtilModule;", "  }", "}",
                ])
    }

    @Test func storedPropertiesAreEncodedAsJSONEncoderDoes() {
        let output = Self.generate(Self.shop)
        #expect(
            Self.block(output.declarations, from: "export interface Item")
                == [
                    "export interface Item {",
                    "  sku: string;",
                    "  price: number;",
                    "  tags: string[];",
                    // Left out of the JSON when nil.
                    "  note?: string;",
                    "  /** a Date: seconds since 2001-01-01T00:00:00Z (JSONEncoder's default). */",
                    "  added: number;",
                    "  link: string;",
                    "  /** Data: bytes, never base64: an ArrayBuffer from native; an ArrayBuffer, typed array, DataView or Blob to it. */",
                    "  thumbnail: HybridBytes;",
                    "  id: string;",
                    "  sizes: Record<string, number>;",
                    // Integer keys are written in decimal, as strings.
                    "  byShelf: Record<string, Item[]>;",
                    "  kind: Kind;",
                    "  a: number;",
                    "  b: number;",
                    "  count: number;",
                    // Observed, still stored; computed, static and lazy properties are not encoded.
                    "  watched: number;",
                    "  maybe?: number;",
                    "  unique: string[];",
                    "}",
                ])
        #expect(
            Self.code(Self.block(output.declarations, from: "export interface Page"))
                == ["export interface Page<Element> {", "  items: Element[];", "  next?: number;", "}"])
    }

    @Test func codingKeysRenameAndLeaveOutProperties() {
        let output = Self.generate(Self.shop)
        #expect(
            Self.block(output.declarations, from: "export interface Renamed")
                == ["export interface Renamed {", "  first_name: string;", "  age: number;", "}"])
    }

    @Test func enumsAreUnionsOfTheirRawValuesOrOfTheirCases() {
        let declarations = Self.generate(Self.shop).declarations
        #expect(declarations.contains(#"export type Kind = "tea" | "tea-pot" | "cup";"#))
        // Implicit raw values count on from the last explicit one.
        #expect(declarations.contains("export type Size = 1 | 2 | 10 | 11;"))
        #expect(declarations.contains(#"export type Shelf = "top" | "bottom";"#))
        // Synthesized coding of cases: {"case": {"label": …, "_0": …}}, optional values left out when nil.
        #expect(
            Self.block(declarations, from: "export type Event", to: "  | { cleared: Record<string, never> };")
                == [
                    "export type Event =", "  | { added: { _0: Item } }",
                    "  | { removed: { sku: string; count?: number } }", "  | { cleared: Record<string, never> };",
                ])
        // A CodingKeyRepresentable String enum keys an object by its raw values; not every key need be there.
        #expect(declarations.contains("  byShelf: Partial<Record<Shelf, number>>;"))
    }

    @Test func namesResolveAsSwiftLooksThemUpAndCollisionsAreQualified() {
        let output = Self.generate(
            """
            struct Item: Codable { var name: String }
            enum Cart {
                struct Item: Codable { var sku: String }
                static let module = BridgeModule("cart", access: .anyPage) { module in
                    module.method("add") { (item: Item, _) -> Item in item }
                    module.method("top") { (item: Cart.Item, _) -> [Item] in [] }
                }
            }
            enum Wish {
                static let module = BridgeModule("wish", access: .anyPage) { module in
                    module.method("add") { (item: Item, _) -> Cart.Item in fatalError() }
                }
            }
            """)
        #expect(output.warnings.isEmpty, "\(output.warnings)")
        #expect(output.declarations.contains("  add(item: CartItem): Promise<CartItem>;"))
        #expect(output.declarations.contains("  top(item: CartItem): Promise<CartItem[]>;"))
        // In Wish, `Item` is the top-level one.
        #expect(output.declarations.contains("  add(item: Item): Promise<CartItem>;"))
        #expect(output.declarations.contains("export interface CartItem {\n  sku: string;\n}"))
        #expect(output.declarations.contains("export interface Item {\n  name: string;\n}"))
    }

    @Test func typesDeclaredInOtherFilesAndExtensionsAreFound() {
        let output = ModuleTypes.generate([
            SwiftSource(
                path: "Module.swift",
                text: """
                    let cart = BridgeModule("cart", access: .anyPage) { module in
                        module.method("add") { (item: Cart.Item, _) -> Int in 1 }
                    }
                    """),
            SwiftSource(
                path: "Types.swift",
                text: """
                    enum Cart {}
                    extension Cart {
                        struct Item: Codable { var sku: String; var quantity: Int }
                    }
                    extension Cart.Item {
                        enum CodingKeys: String, CodingKey { case sku = "SKU", quantity }
                        var isEmpty: Bool { quantity == 0 }
                    }
                    """),
        ])
        #expect(output.warnings.isEmpty, "\(output.warnings)")
        #expect(output.declarations.contains("  add(item: Item): Promise<number>;"))
        #expect(output.declarations.contains("/** `Cart.Item` (Types.swift). */"))
        #expect(output.declarations.contains("export interface Item {\n  SKU: string;\n  quantity: number;\n}"))
    }

    @Test func namesThatAreNotIdentifiersOrReadAsModifiersAreQuoted() {
        let output = Self.generate(
            """
            struct Odd: Codable {
                var `default`: Int
                enum CodingKeys: String, CodingKey { case `default` = "the default" }
            }
            let odd = BridgeModule("odd-one.x", access: .anyPage) { module in
                module.method("new") { (_: NoArguments, _) -> Odd in fatalError() }
                module.method("private") { (_: NoArguments, _) -> Int in 1 }
                module.method("delete") { (function: String, _) -> Bool in true }
            }
            """)
        #expect(output.warnings.isEmpty, "\(output.warnings)")
        #expect(output.declarations.contains(#"  "new"(): Promise<Odd>;"#))
        #expect(output.declarations.contains(#"  "private"(): Promise<number>;"#))
        // A parameter JavaScript reserves the name of is `args`.
        #expect(output.declarations.contains(#"  delete(args: string): Promise<boolean>;"#))
        #expect(output.declarations.contains(#"  "the default": number;"#))
        #expect(output.declarations.contains(#"    "odd-one.x": OddOneXModule;"#))
    }
}
