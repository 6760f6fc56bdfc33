import SwiftSyntax

/// A struct, class, enum or type alias declared in the sources, with what decides its JSON shape under Swift's
/// synthesized `Codable` and JSONEncoder's default strategies.
struct DeclaredType {
    enum Kind { case structure, classType, enumeration, alias }

    /// Its name with the types it is nested in: `["Cart", "Item"]` for `Cart.Item`.
    let path: [String]
    let kind: Kind
    let position: SourcePosition
    let genericParameters: [String]
    /// The inherited types as written (`String`, `Codable`, `CodingKeyRepresentable`), first one first.
    let inherited: [String]
    var properties: [StoredProperty] = []
    var cases: [EnumCase] = []
    var aliasTarget: TypeSyntax?
    /// Where the type (or an extension of it) encodes or decodes itself, which gives it a shape of its own.
    var customCoding: SourcePosition?
    var codingKeys: CodingKeys?

    var swiftName: String { path.joined(separator: ".") }
    var key: String { swiftName }
}

/// A stored property: encoded by synthesized Codable unless CodingKeys leaves it out.
struct StoredProperty {
    let name: String
    let type: TypeSyntax?
    /// The Swift type of a literal initializer when there is no annotation (`var count = 0` is an Int).
    let literalType: String?
    let position: SourcePosition
    /// A property wrapper's name (`@Published`): the wrapper is what gets encoded.
    let wrapper: String?
}

struct EnumCase {
    struct Parameter {
        let label: String?
        let type: TypeSyntax
    }
    let name: String
    let rawValue: ExprSyntax?
    let parameters: [Parameter]
    let position: SourcePosition
}

/// A `CodingKeys` enum: the properties encoded, each under its key.
struct CodingKeys {
    /// Property name → JSON key, in declaration order.
    let keys: [(property: String, key: String)]
    let position: SourcePosition
}

/// Every type the sources declare, by its dotted path.
struct TypeCatalog {
    private(set) var types: [String: DeclaredType] = [:]
    /// Keys declared more than once (types inside functions count as declared beside them), with where: which one a
    /// use means is not known, so such a type is unknown.
    private(set) var ambiguous: [String: [SourcePosition]] = [:]

    init(files: [ParsedFile]) {
        var extensions: [(path: [String], coding: SourcePosition?, keys: CodingKeys?)] = []
        for file in files {
            let collector = DeclarationCollector(file: file)
            collector.walk(file.tree)
            for type in collector.types {
                if let first = types[type.key] {
                    ambiguous[type.key, default: [first.position]].append(type.position)
                } else {
                    types[type.key] = type
                }
            }
            extensions += collector.extensions
        }
        // Extensions add no stored properties, but may encode the type themselves or bring its CodingKeys.
        for (path, coding, keys) in extensions {
            guard let key = resolve(path, from: []) else { continue }
            if let coding, types[key]?.customCoding == nil { types[key]?.customCoding = coding }
            if let keys, types[key]?.codingKeys == nil { types[key]?.codingKeys = keys }
        }
    }

    /// The key of the type `name` (one or more components) refers to from inside `scope`, looked up as Swift
    /// does: the innermost enclosing type first, then outwards to the top level.
    func resolve(_ name: [String], from scope: [String]) -> String? {
        var enclosing = scope
        while true {
            let key = (enclosing + name).joined(separator: ".")
            if types[key] != nil { return key }
            if enclosing.isEmpty { return nil }
            enclosing.removeLast()
        }
    }

    subscript(key: String) -> DeclaredType? { types[key] }
}

/// A file parsed once, with what turns its nodes into lines.
struct ParsedFile {
    let path: String
    let tree: SourceFileSyntax
    let converter: SourceLocationConverter

    func position(of node: some SyntaxProtocol) -> SourcePosition {
        SourcePosition(file: path, line: node.startLocation(converter: converter).line)
    }
}

/// Collects the type declarations of one file, with the path of types each is nested in. Function bodies do not
/// count as a level: a type declared in one is named as if declared beside the function.
final class DeclarationCollector: SyntaxVisitor {
    let file: ParsedFile
    private var scope: [String] = []
    private(set) var types: [DeclaredType] = []
    private(set) var extensions: [(path: [String], coding: SourcePosition?, keys: CodingKeys?)] = []

    init(file: ParsedFile) {
        self.file = file
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        enter(.structure, node.name, node.genericParameterClause, node.inheritanceClause, node.memberBlock, node)
    }
    override func visitPost(_ node: StructDeclSyntax) { scope.removeLast() }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        enter(.classType, node.name, node.genericParameterClause, node.inheritanceClause, node.memberBlock, node)
    }
    override func visitPost(_ node: ClassDeclSyntax) { scope.removeLast() }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        enter(.enumeration, node.name, node.genericParameterClause, node.inheritanceClause, node.memberBlock, node)
    }
    override func visitPost(_ node: EnumDeclSyntax) { scope.removeLast() }

    // Actors are never Codable here, but types nested in one are named through it.
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
        scope.append(Names.plain(node.name))
        return .visitChildren
    }
    override func visitPost(_ node: ActorDeclSyntax) { scope.removeLast() }

    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        let path = Names.components(of: node.extendedType) ?? []
        let (coding, keys) = codingMembers(node.memberBlock)
        extensions.append((path, coding, keys))
        scope.append(contentsOf: path)
        extensionDepths.append(path.count)
        return .visitChildren
    }
    override func visitPost(_ node: ExtensionDeclSyntax) {
        scope.removeLast(extensionDepths.removeLast())
    }
    private var extensionDepths: [Int] = []

    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
        var alias = DeclaredType(
            path: scope + [Names.plain(node.name)], kind: .alias, position: file.position(of: node),
            genericParameters: [], inherited: [])
        alias.aliasTarget = node.initializer.value
        types.append(alias)
        return .skipChildren
    }

    private func enter(
        _ kind: DeclaredType.Kind, _ name: TokenSyntax, _ generics: GenericParameterClauseSyntax?,
        _ inheritance: InheritanceClauseSyntax?, _ members: MemberBlockSyntax, _ node: some SyntaxProtocol
    ) -> SyntaxVisitorContinueKind {
        scope.append(Names.plain(name))
        var type = DeclaredType(
            path: scope, kind: kind, position: file.position(of: node),
            genericParameters: generics?.parameters.map { Names.plain($0.name) } ?? [],
            inherited: inheritance?.inheritedTypes.map { $0.type.trimmedDescription } ?? [])
        (type.customCoding, type.codingKeys) = codingMembers(members)
        for member in members.members {
            if let variable = member.decl.as(VariableDeclSyntax.self) {
                type.properties += storedProperties(variable)
            } else if let cases = member.decl.as(EnumCaseDeclSyntax.self) {
                type.cases += cases.elements.map { element in
                    EnumCase(
                        name: Names.plain(element.name), rawValue: element.rawValue?.value,
                        parameters: element.parameterClause?.parameters.map {
                            EnumCase.Parameter(label: $0.firstName.map(Names.plain), type: $0.type)
                        } ?? [],
                        position: file.position(of: element))
                }
            }
        }
        types.append(type)
        return .visitChildren
    }

    /// Where the members encode or decode the type themselves, and its CodingKeys.
    private func codingMembers(_ members: MemberBlockSyntax) -> (SourcePosition?, CodingKeys?) {
        var coding: SourcePosition?
        var keys: CodingKeys?
        for member in members.members {
            if let function = member.decl.as(FunctionDeclSyntax.self), function.name.text == "encode",
                let parameter = function.signature.parameterClause.parameters.first,
                parameter.firstName.text == "to", parameter.type.trimmedDescription.contains("Encoder")
            {
                coding = coding ?? file.position(of: function)
            } else if let initializer = member.decl.as(InitializerDeclSyntax.self),
                let parameter = initializer.signature.parameterClause.parameters.first,
                parameter.firstName.text == "from", parameter.type.trimmedDescription.contains("Decoder")
            {
                coding = coding ?? file.position(of: initializer)
            } else if let enumeration = member.decl.as(EnumDeclSyntax.self), enumeration.name.text == "CodingKeys" {
                keys = codingKeys(enumeration)
            }
        }
        return (coding, keys)
    }

    private func codingKeys(_ enumeration: EnumDeclSyntax) -> CodingKeys {
        let stringValued = enumeration.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription == "String"
        var keys: [(property: String, key: String)] = []
        for member in enumeration.memberBlock.members {
            guard let cases = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in cases.elements {
                let name = Names.plain(element.name)
                let raw = element.rawValue?.value.as(StringLiteralExprSyntax.self)?.representedLiteralValue
                keys.append((name, stringValued ? raw ?? name : name))
            }
        }
        return CodingKeys(keys: keys, position: file.position(of: enumeration))
    }

    /// The stored properties of a `var`/`let` declaration: not static, not lazy (synthesized Codable skips lazy
    /// ones), not computed. In `var a, b: Int`, `a` takes `b`'s type.
    private func storedProperties(_ variable: VariableDeclSyntax) -> [StoredProperty] {
        let skipped: Set<String> = ["static", "class", "lazy"]
        if variable.modifiers.contains(where: { skipped.contains($0.name.text) }) { return [] }
        let wrapper = variable.attributes.compactMap { element -> String? in
            guard let attribute = element.as(AttributeSyntax.self) else { return nil }
            let name = attribute.attributeName.trimmedDescription
            return Names.notPropertyWrappers.contains(name) ? nil : name
        }.first
        var properties: [StoredProperty] = []
        var pendingUntyped: [(String, SourcePosition)] = []
        for binding in variable.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self).map({ Names.plain($0.identifier) })
            else { continue }
            if let accessors = binding.accessorBlock, Self.isComputed(accessors) { continue }
            let position = file.position(of: binding)
            if let type = binding.typeAnnotation?.type {
                // The names waiting for a type (`var a, b: Int`) share this one.
                for (waiting, at) in pendingUntyped {
                    properties.append(
                        StoredProperty(name: waiting, type: type, literalType: nil, position: at, wrapper: wrapper))
                }
                pendingUntyped = []
                properties.append(
                    StoredProperty(name: name, type: type, literalType: nil, position: position, wrapper: wrapper))
            } else if let value = binding.initializer?.value {
                properties.append(
                    StoredProperty(
                        name: name, type: nil, literalType: Self.literalType(of: value), position: position,
                        wrapper: wrapper))
            } else {
                pendingUntyped.append((name, position))
            }
        }
        for (waiting, at) in pendingUntyped {
            properties.append(
                StoredProperty(name: waiting, type: nil, literalType: nil, position: at, wrapper: wrapper))
        }
        return properties
    }

    private static func isComputed(_ block: AccessorBlockSyntax) -> Bool {
        switch block.accessors {
        case .getter: return true
        case .accessors(let list):
            // Observers (willSet, didSet) keep a property stored; any other accessor makes it computed.
            return list.contains { !["willSet", "didSet"].contains($0.accessorSpecifier.text) }
        }
    }

    private static func literalType(of value: ExprSyntax) -> String? {
        if value.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if value.is(FloatLiteralExprSyntax.self) { return "Double" }
        if value.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if let string = value.as(StringLiteralExprSyntax.self), string.representedLiteralValue != nil {
            return "String"
        }
        if let prefix = value.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return literalType(of: prefix.expression)
        }
        return nil
    }
}

/// Names as the generator compares them.
enum Names {
    /// A token's name without the backticks of an escaped keyword (`default`).
    static func plain(_ token: TokenSyntax) -> String {
        let text = token.text
        if text.hasPrefix("`"), text.hasSuffix("`"), text.count >= 2 { return String(text.dropFirst().dropLast()) }
        return text
    }

    /// `A.B.C` as components, for a type written as a plain or member name (generic arguments ignored).
    static func components(of type: TypeSyntax) -> [String]? {
        if let identifier = type.as(IdentifierTypeSyntax.self) { return [plain(identifier.name)] }
        if let member = type.as(MemberTypeSyntax.self), let base = components(of: member.baseType) {
            return base + [plain(member.name)]
        }
        return nil
    }

    /// Attributes a stored property may carry that are not property wrappers.
    static let notPropertyWrappers: Set<String> = [
        "available", "MainActor", "objc", "nonobjc", "preconcurrency", "usableFromInline", "inlinable", "frozen",
        "NSCopying", "NSManaged", "IBOutlet", "IBInspectable", "GKInspectable", "exclusivity", "_spi", "backDeployed",
        "Sendable", "unchecked", "nonisolated", "discardableResult",
    ]
}
