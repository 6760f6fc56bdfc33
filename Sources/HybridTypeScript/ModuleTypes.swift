import SwiftParser
import SwiftSyntax

/// TypeScript declarations of an app's bridge modules, read from its Swift: each `BridgeModule("name", …)` with the
/// methods its closure registers, the Codable types they take and return, and `HybridModules`, so that
/// `hybrid.module('cart')` in a page is typed by what native declares. What cannot be typed is `unknown`, with a
/// warning naming the line and the fix.
public enum ModuleTypes {
    public struct Output: Sendable {
        /// The `.d.ts` text.
        public let declarations: String
        /// What became `unknown`, and the declarations left out, in source order.
        public let warnings: [GeneratorWarning]
        /// The modules declared, by name.
        public let modules: [String]
    }

    /// The names a page's proxy never treats as methods (hybrid.d.ts's `HybridReservedName`, proxies.js).
    static let proxyReserved: Set<String> = [
        "then", "toJSON", "constructor", "toString", "toLocaleString", "valueOf", "hasOwnProperty", "isPrototypeOf",
        "propertyIsEnumerable", "__proto__", "__defineGetter__", "__defineSetter__", "__lookupGetter__",
        "__lookupSetter__",
    ]

    /// Reads `sources` and writes the declarations; `hybridTypes` is how they import hybrid.d.ts (a path relative to
    /// where they are written, without `.d.ts`). Blocks the calling thread while a thread of its own with a large
    /// stack does the work (see ``LargeStack``); files swift-syntax cannot be trusted with are skipped with a
    /// warning (see ``SourceGuard``).
    public static func generate(_ sources: [SwiftSource], hybridTypes: String = "./hybrid") -> Output {
        LargeStack.run { generateHere(sources, hybridTypes: hybridTypes) }
    }

    private static func generateHere(_ sources: [SwiftSource], hybridTypes: String) -> Output {
        var warnings: [GeneratorWarning] = []
        let files = sources.compactMap { source -> ParsedFile? in
            if let problem = SourceGuard.problem(in: source.text) {
                warnings.append(
                    GeneratorWarning(position: SourcePosition(file: source.path, line: 1), message: problem))
                return nil
            }
            let tree = Parser.parse(source: source.text)
            if tree.hasError {
                warnings.append(
                    GeneratorWarning(
                        position: SourcePosition(file: source.path, line: 1),
                        message: "the file does not parse as Swift; declarations in it may be missed"))
            }
            return ParsedFile(
                path: source.path, tree: tree, converter: SourceLocationConverter(fileName: source.path, tree: tree))
        }
        let catalog = TypeCatalog(files: files)
        var modules: [DeclaredModule] = []
        for file in files {
            let scanner = ModuleScanner(file: file)
            scanner.walk(file.tree)
            warnings += scanner.warnings
            for module in scanner.modules {
                if let first = modules.first(where: { $0.name == module.name }) {
                    warnings.append(
                        GeneratorWarning(
                            position: module.position,
                            message: "module '\(module.name)' is declared again (first at \(first.position)); only the "
                                + "first is typed: give each module a name of its own"))
                } else {
                    modules.append(module)
                }
            }
        }
        if modules.isEmpty, let first = sources.first {
            warnings.append(
                GeneratorWarning(
                    position: SourcePosition(file: first.path, line: 1),
                    message: "no BridgeModule(\"name\", …) { module in … } in the \(sources.count) file(s) given: "
                        + "name the files or folders that declare your modules"))
        }
        var describer = MethodDescriber(modules: modules, mapper: TypeMapper(catalog: catalog))
        let interfaces = modules.map { describer.describe($0) }
        describer.mapper.declarePending()
        warnings += describer.warnings + describer.mapper.warnings
        let writer = DeclarationWriter(
            interfaces: interfaces,
            declarations: describer.mapper.order.compactMap { describer.mapper.declarations[$0] },
            hybridTypes: hybridTypes)
        return Output(
            declarations: writer.text,
            warnings: Array(Set(warnings)).sorted { ($0.position, $0.message) < ($1.position, $1.message) },
            modules: modules.map(\.name))
    }
}

/// A module as its TypeScript interface declares it.
struct ModuleInterface {
    struct Method {
        enum Kind { case call, synchronous, stream }
        let name: String
        let kind: Kind
        /// Nil for a method that takes `NoArguments`.
        let parameter: (name: String, type: TypeScriptType, optional: Bool)?
        let result: TypeScriptType
        let position: SourcePosition
        let note: String?
    }

    let module: DeclaredModule
    let methods: [Method]
}

/// Describes each module's methods, following forwards to the method that answers.
struct MethodDescriber {
    let modules: [DeclaredModule]
    var mapper: TypeMapper
    private(set) var warnings: [GeneratorWarning] = []

    init(modules: [DeclaredModule], mapper: TypeMapper) {
        self.modules = modules
        self.mapper = mapper
    }

    mutating func describe(_ module: DeclaredModule) -> ModuleInterface {
        // A name registered twice is answered by the last registration, as the builder keeps it.
        var latest: [String: Registration] = [:]
        for registration in module.registrations { latest[registration.name] = registration }
        var seen: Set<String> = []
        var methods: [ModuleInterface.Method] = []
        for registration in module.registrations.reversed() where seen.insert(registration.name).inserted {
            guard let kept = latest[registration.name] else { continue }
            if ModuleTypes.proxyReserved.contains(kept.name) {
                warnings.append(
                    GeneratorWarning(
                        position: kept.position,
                        message: "\(module.name).\(kept.name) cannot be called through hybrid.module('\(module.name)') "
                            + "(a proxy never treats '\(kept.name)' as a method, so awaiting or printing it stays "
                            + "safe): rename it, or call it with hybrid.call('\(module.name)', '\(kept.name)', …)"))
            }
            methods.append(describe(kept, of: module))
        }
        return ModuleInterface(module: module, methods: methods.reversed())
    }

    private mutating func describe(_ registration: Registration, of module: DeclaredModule) -> ModuleInterface.Method {
        let what = "\(module.name).\(registration.name)"
        guard case .forward(let target, let method) = registration.kind else {
            return method(registration, in: module, named: registration.name, what: what, note: nil)
        }
        let answer = answeringMethod(module: target, method: method, visited: ["\(module.name).\(registration.name)"])
        guard case .found(let answering, let owner) = answer else {
            let problem =
                answer == .cycle
                ? "which forwards back to it (a cycle of forwards, which native refuses too)"
                : "which the sources given do not declare, so it is unknown: add the file that declares module "
                    + "'\(target)' to the command"
            warnings.append(
                GeneratorWarning(
                    position: registration.position, message: "\(what) forwards to \(target).\(method), \(problem)"))
            return ModuleInterface.Method(
                name: registration.name, kind: .call, parameter: ("args", .unknown, true), result: .unknown,
                position: registration.position,
                note: "forwards to \(target).\(method), \(answer == .cycle ? "a cycle" : "not found")")
        }
        return self.method(
            answering, in: owner, named: registration.name, what: what, note: "forwards to \(target).\(method)",
            at: registration.position)
    }

    enum Answer: Equatable {
        case found(Registration, DeclaredModule)
        case missing
        case cycle

        static func == (a: Answer, b: Answer) -> Bool {
            switch (a, b) {
            case (.missing, .missing), (.cycle, .cycle): true
            case (.found(let x, let m), .found(let y, let n)): x.position == y.position && m.name == n.name
            default: false
            }
        }
    }

    /// The registration that answers `module.method`, forwards followed.
    private func answeringMethod(module: String, method: String, visited: Set<String>) -> Answer {
        let key = "\(module).\(method)"
        guard !visited.contains(key) else { return .cycle }
        guard let owner = modules.first(where: { $0.name == module }),
            let registration = owner.registrations.last(where: { $0.name == method })
        else { return .missing }
        if case .forward(let next, let nextMethod) = registration.kind {
            return answeringMethod(module: next, method: nextMethod, visited: visited.union([key]))
        }
        return .found(registration, owner)
    }

    private mutating func method(
        _ registration: Registration, in module: DeclaredModule, named name: String, what: String, note: String?,
        at position: SourcePosition? = nil
    ) -> ModuleInterface.Method {
        let site = { (subject: String) in
            UseSite(scope: module.scope, generics: [], position: registration.position, subject: subject)
        }
        var parameter: (name: String, type: TypeScriptType, optional: Bool)? = (
            registration.argumentName, .unknown, false
        )
        if let syntax = registration.argumentType {
            let (wrapped, optional) = TypeMapper.unwrapped(syntax)
            let type = mapper.map(wrapped, at: site("the argument of \(what)"))
            if type == .null && !optional {
                parameter = nil  // NoArguments: the page passes nothing.
            } else {
                parameter = (registration.argumentName, optional ? type.orNull : type, optional)
            }
        }
        var result = TypeScriptType.unknown
        var kind: ModuleInterface.Method.Kind = .call
        switch registration.kind {
        case .method(let synchronous):
            kind = synchronous ? .synchronous : .call
            if let syntax = registration.resultType { result = mapper.map(syntax, at: site("the result of \(what)")) }
        case .stream:
            kind = .stream
            if let syntax = registration.resultType {
                if let element = Self.element(of: syntax) {
                    result = mapper.map(element, at: site("the elements of \(what)"))
                } else {
                    warnings.append(
                        GeneratorWarning(
                            position: registration.position,
                            message: "\(what) returns `\(syntax.trimmedDescription)`, whose element type is not "
                                + "written, so its elements are unknown: return AsyncStream<Element> or "
                                + "AsyncThrowingStream<Element, any Error>, or write -> some AsyncSequence<Element, "
                                + "any Error>"))
                }
            }
        case .forward:
            break  // followed by the caller
        }
        let notes = [note, registration.untypedBecause.map { "not typed: \($0)" }].compactMap { $0 }
        return ModuleInterface.Method(
            name: name, kind: kind, parameter: parameter, result: result, position: position ?? registration.position,
            note: notes.isEmpty ? nil : notes.joined(separator: "; "))
    }

    /// `AsyncStream<E>`, `AsyncThrowingStream<E, F>`, `some AsyncSequence<E, F>`: E.
    static func element(of syntax: TypeSyntax) -> TypeSyntax? {
        var type = syntax
        if let opaque = syntax.as(SomeOrAnyTypeSyntax.self) { type = opaque.constraint }
        guard let (path, arguments) = TypeMapper.named(type), let last = path.last,
            ["AsyncStream", "AsyncThrowingStream", "AsyncSequence"].contains(last)
        else { return nil }
        return arguments.first
    }
}
