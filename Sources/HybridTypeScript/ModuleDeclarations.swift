import SwiftSyntax

/// A `BridgeModule("name", …) { module in … }` found in the sources, with what its closure registers.
struct DeclaredModule {
    let name: String
    let position: SourcePosition
    /// The types enclosing the declaration, where the names its methods use are looked up.
    let scope: [String]
    var registrations: [Registration] = []
}

/// One `module.method`, `module.stream` or `module.forward` call.
struct Registration {
    enum Kind: Equatable {
        case method(synchronous: Bool)
        case stream
        case forward(module: String, method: String)
    }

    let name: String
    let kind: Kind
    let position: SourcePosition
    /// The closure's first parameter: its name (for the declaration) and type; nil type when not written.
    let argumentName: String
    let argumentType: TypeSyntax?
    /// The closure's written result type (`-> Summary`), or nil.
    let resultType: TypeSyntax?
    /// Why the closure's types could not be read, with the fix; nil when they could.
    let untypedBecause: String?
}

/// Finds `BridgeModule(…)` calls and reads their registrations. Anything it cannot read becomes a warning.
final class ModuleScanner: SyntaxVisitor {
    let file: ParsedFile
    private var scope: [String] = []
    private var extensionDepths: [Int] = []
    private(set) var modules: [DeclaredModule] = []
    private(set) var warnings: [GeneratorWarning] = []

    init(file: ParsedFile) {
        self.file = file
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { push(node.name) }
    override func visitPost(_ node: StructDeclSyntax) { scope.removeLast() }
    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { push(node.name) }
    override func visitPost(_ node: ClassDeclSyntax) { scope.removeLast() }
    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind { push(node.name) }
    override func visitPost(_ node: EnumDeclSyntax) { scope.removeLast() }
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind { push(node.name) }
    override func visitPost(_ node: ActorDeclSyntax) { scope.removeLast() }
    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        let path = Names.components(of: node.extendedType) ?? []
        scope += path
        extensionDepths.append(path.count)
        return .visitChildren
    }
    override func visitPost(_ node: ExtensionDeclSyntax) { scope.removeLast(extensionDepths.removeLast()) }

    private func push(_ name: TokenSyntax) -> SyntaxVisitorContinueKind {
        scope.append(Names.plain(name))
        return .visitChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if Self.isBridgeModule(node.calledExpression) { read(node) }
        return .visitChildren
    }

    private func warn(_ node: some SyntaxProtocol, _ message: String) {
        warnings.append(GeneratorWarning(position: file.position(of: node), message: message))
    }

    /// `BridgeModule(…)`, `HybridKit.BridgeModule(…)` or `BridgeModule.init(…)`.
    static func isBridgeModule(_ callee: ExprSyntax) -> Bool {
        if let reference = callee.as(DeclReferenceExprSyntax.self) { return reference.baseName.text == "BridgeModule" }
        if let member = callee.as(MemberAccessExprSyntax.self) {
            if member.declName.baseName.text == "BridgeModule" { return true }
            if member.declName.baseName.text == "init", let base = member.base { return isBridgeModule(base) }
        }
        return false
    }

    private func read(_ call: FunctionCallExprSyntax) {
        guard let nameArgument = call.arguments.first(where: { $0.label == nil }) else { return }
        guard let name = Self.literal(nameArgument.expression) else {
            warn(
                call,
                "a BridgeModule whose name is not a string literal is left out: write its name as a literal "
                    + "(BridgeModule(\"cart\", …)) so its methods can be typed")
            return
        }
        var module = DeclaredModule(name: name, position: file.position(of: call), scope: scope)
        let closure = call.trailingClosure ?? call.arguments.last?.expression.as(ClosureExprSyntax.self)
        guard let closure else {
            warn(
                call,
                "module '\(name)' is defined outside its BridgeModule call, so its methods are not seen: register "
                    + "them in the closure of BridgeModule(\"\(name)\", …) { module in … }")
            modules.append(module)
            return
        }
        let builder = Self.firstParameterName(of: closure) ?? "$0"
        let finder = RegistrationFinder(builder: builder, module: name, file: file)
        finder.walk(closure.statements)
        module.registrations = finder.registrations
        warnings += finder.warnings
        modules.append(module)
    }

    static func literal(_ expression: ExprSyntax) -> String? {
        expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue
    }

    static func firstParameterName(of closure: ClosureExprSyntax) -> String? {
        switch closure.signature?.parameterClause {
        case .simpleInput(let parameters): return parameters.first.map { Names.plain($0.name) }
        case .parameterClause(let clause):
            return clause.parameters.first.map { Names.plain($0.secondName ?? $0.firstName) }
        case nil: return nil
        }
    }
}

/// Reads the registrations on a module's builder (`module.method(…)`), and notices the builder handed elsewhere.
final class RegistrationFinder: SyntaxVisitor {
    let builder: String
    let module: String
    let file: ParsedFile
    private(set) var registrations: [Registration] = []
    private(set) var warnings: [GeneratorWarning] = []

    init(builder: String, module: String, file: ParsedFile) {
        self.builder = builder
        self.module = module
        self.file = file
        super.init(viewMode: .sourceAccurate)
    }

    private func warn(_ node: some SyntaxProtocol, _ message: String) {
        warnings.append(GeneratorWarning(position: file.position(of: node), message: message))
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let member = node.calledExpression.as(MemberAccessExprSyntax.self),
            let base = member.base?.as(DeclReferenceExprSyntax.self), base.baseName.text == builder
        else { return .visitChildren }
        let kind = member.declName.baseName.text
        guard ["method", "stream", "forward"].contains(kind) else {
            warn(
                node,
                "\(builder).\(kind)(…) of module '\(module)' is not a registration `hybrid types` knows (method, "
                    + "stream, forward); it is left out")
            return .visitChildren
        }
        guard let nameArgument = node.arguments.first, nameArgument.label == nil,
            let name = ModuleScanner.literal(nameArgument.expression)
        else {
            warn(
                node,
                "a method of module '\(module)' whose name is not a string literal is left out: write "
                    + "\(builder).\(kind)(\"name\") { … }")
            return .visitChildren
        }
        if kind == "forward" {
            readForward(node, name: name)
        } else {
            readClosure(node, name: name, kind: kind == "stream" ? .stream : .method(synchronous: synchronous(node)))
        }
        return .visitChildren
    }

    /// A use of the builder other than `builder.x(…)`: handing it to a function registers methods this does not see.
    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.baseName.text == builder else { return .visitChildren }
        if let parent = node.parent?.as(MemberAccessExprSyntax.self), parent.base?.id == node.id {
            return .visitChildren
        }
        warn(
            node,
            "module '\(module)' hands its builder to other code here; methods registered there are not typed: "
                + "register them in the BridgeModule closure itself")
        return .visitChildren
    }

    private func synchronous(_ call: FunctionCallExprSyntax) -> Bool {
        guard let argument = call.arguments.first(where: { $0.label?.text == "synchronous" }) else { return false }
        if let literal = argument.expression.as(BooleanLiteralExprSyntax.self) { return literal.literal.text == "true" }
        warn(
            argument,
            "synchronous: is not a literal here, so the declaration does not offer .sync: write true or false")
        return false
    }

    private func readForward(_ call: FunctionCallExprSyntax, name: String) {
        let target = call.arguments.first { $0.label?.text == "to" }.flatMap { ModuleScanner.literal($0.expression) }
        let methodArgument = call.arguments.first { $0.label?.text == "method" }
        let method = methodArgument.map { ModuleScanner.literal($0.expression) } ?? name
        guard let target, let method else {
            warn(call, "forward '\(name)' of module '\(module)' names its target with a non-literal: write literals")
            registrations.append(
                Registration(
                    name: name, kind: .method(synchronous: false), position: file.position(of: call),
                    argumentName: "args", argumentType: nil, resultType: nil,
                    untypedBecause: "its target is not written as literals"))
            return
        }
        registrations.append(
            Registration(
                name: name, kind: .forward(module: target, method: method), position: file.position(of: call),
                argumentName: "args", argumentType: nil, resultType: nil, untypedBecause: nil))
    }

    private func readClosure(_ call: FunctionCallExprSyntax, name: String, kind: Registration.Kind) {
        let what = "\(module).\(name)"
        let closure =
            call.trailingClosure
            ?? call.arguments.dropFirst().compactMap { $0.expression.as(ClosureExprSyntax.self) }.first
        guard let closure else {
            let because = "its body is not a closure written here"
            let example =
                kind == .stream ? "(filter: Filter, _) -> AsyncStream<Element> in" : "(item: Item, _) -> Summary in"
            warn(call, "\(what) is not typed: \(because); write it as a closure with its types, { \(example) … }")
            registrations.append(
                Registration(
                    name: name, kind: kind, position: file.position(of: call), argumentName: "args",
                    argumentType: nil, resultType: nil, untypedBecause: because))
            return
        }
        var argumentName = "args"
        var argumentType: TypeSyntax?
        var writtenParameters: String?
        switch closure.signature?.parameterClause {
        case .parameterClause(let clause):
            if let first = clause.parameters.first {
                let written = Names.plain(first.secondName ?? first.firstName)
                if written != "_" { argumentName = written }
                argumentType = first.type
            }
            if argumentType != nil { writtenParameters = clause.trimmedDescription }
        case .simpleInput(let names):
            if let first = names.first, first.name.text != "_" { argumentName = Names.plain(first.name) }
        case nil:
            break
        }
        let resultType = closure.signature?.returnClause?.type
        var missing: [String] = []
        if argumentType == nil { missing.append("argument") }
        if resultType == nil { missing.append(kind == .stream ? "element" : "result") }
        var because: String?
        if !missing.isEmpty {
            let inferred = missing.joined(separator: " and ")
            because = "its closure's \(inferred) type is inferred"
            // The closure as it would read with its types written.
            let parameters = writtenParameters ?? "(\(argumentName): Arguments, _)"
            let effects = closure.signature?.effectSpecifiers.map { $0.trimmedDescription + " " } ?? ""
            let result = resultType?.trimmedDescription ?? (kind == .stream ? "AsyncStream<Element>" : "Result")
            warn(
                closure,
                "\(what): the closure's \(inferred) type is inferred, so it is unknown to TypeScript: write it, "
                    + "{ \(parameters) \(effects)-> \(result) in … }")
        }
        registrations.append(
            Registration(
                name: name, kind: kind, position: file.position(of: call), argumentName: argumentName,
                argumentType: argumentType, resultType: resultType, untypedBecause: because))
    }
}
