import ArgumentParser
import Foundation
import HybridTypeScript

/// `hybrid types`: TypeScript declarations of the app's bridge modules, read from its Swift, so that pages call
/// `hybrid.module('cart').add(item)` with the types native declares.
struct TypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "Write TypeScript declarations of the app's bridge modules from their Swift.",
        discussion: """
            Reads each BridgeModule("name", …) { module in … } in the Swift sources given and the methods its closure \
            registers (method, synchronous methods, stream, forward), with the Codable structs and enums they take and \
            return, and writes a .d.ts: an interface per module, the types as JSONEncoder's defaults encode them \
            (optionals as optional keys, [String: T] as Record, Date as seconds since 2001, Data as base64, String \
            enums as unions of their raw values, CodingKeys honoured), and HybridModules, which types \
            hybrid.module('name') in hybrid.d.ts. Put it beside hybrid.d.ts in the H5 project.

            Write each method's closure with its types, { (item: Item, _) throws -> Summary in … }: a type left to \
            inference, a type declared in a file not given, or a type that encodes itself becomes `unknown`, with a \
            warning on standard error naming file:line and the fix.

            Examples:
              hybrid types Sources/ShopCart --output web/modules.d.ts
              # in CI: exit 1 when the committed file and the Swift drifted apart
              hybrid types Sources/ShopCart --output web/modules.d.ts --check
            """)

    @Argument(help: "Swift files, or folders searched recursively, that declare the modules and the types they use.")
    var sources: [String]

    @Option(name: .shortAndLong, help: "Write the declarations to this file (default: standard output).")
    var output: String?

    @Option(
        name: .long,
        help: "How the declarations import hybrid.d.ts, relative to the file they are written to (without .d.ts).")
    var hybridTypes = "./hybrid"

    @Flag(
        name: .long,
        help: "Write nothing; exit 1 when --output differs from what the sources declare now (page and native drifted)."
    )
    var check = false

    @Flag(name: .long, help: "Exit 1 on any warning: something became `unknown` or was left out (after writing).")
    var strict = false

    func validate() throws {
        if check && output == nil { throw ValidationError("--check compares with --output: name the file") }
    }

    func run() throws {
        let generated = ModuleTypes.generate(try SwiftSource.read(sources), hybridTypes: hybridTypes)
        for warning in generated.warnings {
            FileHandle.standardError.write(Data("\(warning)\n".utf8))
        }
        if let output {
            let url = URL(fileURLWithPath: output)
            if check {
                let current = FileManager.default.contents(atPath: url.path).map { String(decoding: $0, as: UTF8.self) }
                guard current == generated.declarations else { throw TypesCommandError.drifted(path: output) }
                print("\(output) is up to date (modules: \(generated.modules.joined(separator: ", ")))")
            } else {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(generated.declarations.utf8).write(to: url, options: .atomic)
                FileHandle.standardError.write(
                    Data(
                        "wrote \(output): \(generated.modules.count) module(s), \(generated.warnings.count) warning(s)\n"
                            .utf8))
            }
        } else {
            print(generated.declarations, terminator: "")
        }
        if strict && !generated.warnings.isEmpty { throw TypesCommandError.untyped(count: generated.warnings.count) }
    }
}

enum TypesCommandError: Error, CustomStringConvertible {
    case drifted(path: String)
    case untyped(count: Int)

    var description: String {
        switch self {
        case .drifted(let path):
            "'\(path)' no longer matches the Swift modules: run the same command without --check to write it again, "
                + "then fix the pages tsc then reports"
        case .untyped(let count):
            "\(count) warning(s) (--strict): write the types the warnings name, or drop --strict"
        }
    }
}
