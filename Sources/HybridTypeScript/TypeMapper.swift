import SwiftSyntax

/// A declared type as TypeScript will declare it.
struct Declaration {
    enum Body {
        case interface([Property])
        case alias(TypeScriptType)
    }

    struct Property {
        let name: String
        let type: TypeScriptType
        let optional: Bool
        let note: String?
    }

    let type: DeclaredType
    let body: Body
    /// Why it is `unknown`, for its comment; nil when typed.
    let untypedBecause: String?
}

/// Where a type is used, for the lookups and the warnings of mapping it.
struct UseSite {
    let scope: [String]
    let generics: Set<String>
    let position: SourcePosition
    /// What uses it, for warnings: "the argument of cart.add", "property 'sku' of Cart.Item".
    let subject: String
}

/// Maps Swift types to TypeScript as JSONEncoder and JSONDecoder's default strategies and synthesized Codable
/// shape them, collecting the declarations of the declared types it meets.
struct TypeMapper {
    let catalog: TypeCatalog
    private(set) var declarations: [String: Declaration] = [:]
    /// Declared keys in the order they were first met.
    private(set) var order: [String] = []
    private(set) var warnings: [GeneratorWarning] = []
    private var pending: [String] = []
    /// Every declared key met, declared or waiting to be.
    private var met: Set<String> = []
    private var expandingAliases: Set<String> = []

    init(catalog: TypeCatalog) { self.catalog = catalog }

    /// Scalars by their Swift name, as JSONEncoder writes them by default.
    static let scalars: [String: String] = {
        var scalars = [
            "String": "string", "Bool": "boolean", "URL": "string", "UUID": "string", "Data": bytesType,
        ]
        for number in [
            "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double",
            "Float", "Float16", "Float80", "CGFloat", "Decimal",
            // deferredToDate: seconds since 1 January 2001, a number.
            "Date",
        ] {
            scalars[number] = "number"
        }
        // Any JSON value: typed as what it is.
        scalars["JSONValue"] = "unknown"
        // Decodes from anything, encodes as null.
        scalars["NoArguments"] = "null"
        return scalars
    }()

    /// Notes the declarations carry beside a property of these types.
    static let notes = [
        "Date": "a Date: seconds since 2001-01-01T00:00:00Z (JSONEncoder's default)",
        "Data":
            "Data: bytes, never base64: an ArrayBuffer from native; an ArrayBuffer, typed array, DataView or Blob to it",
    ]

    /// What a `Data` is in the page (hybrid.d.ts): the bridge carries it as bytes, by reference, both ways.
    static let bytesType = "HybridBytes"

    /// HybridKit's argument and value types.
    static let bridgeTypes: Set<String> = ["NoArguments", "JSONValue"]
    static let sequences: Set<String> = ["Array", "Set", "ContiguousArray", "ArraySlice"]
    static let modulePrefixes: Set<String> = ["Swift", "Foundation", "HybridKit", "CoreGraphics"]
    static let integerRawTypes: Set<String> = [
        "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
    ]
    static let floatRawTypes: Set<String> = ["Double", "Float", "Float16", "Float80", "CGFloat"]

    private mutating func warn(_ site: UseSite, _ message: String) {
        warnings.append(GeneratorWarning(position: site.position, message: message))
    }

    private mutating func warn(_ position: SourcePosition, _ message: String) {
        warnings.append(GeneratorWarning(position: position, message: message))
    }

    // MARK: Types

    mutating func map(_ syntax: TypeSyntax, at site: UseSite) -> TypeScriptType {
        if let optional = syntax.as(OptionalTypeSyntax.self) { return map(optional.wrappedType, at: site).orNull }
        if let optional = syntax.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return map(optional.wrappedType, at: site).orNull
        }
        if let array = syntax.as(ArrayTypeSyntax.self) { return .array(map(array.element, at: site)) }
        if let dictionary = syntax.as(DictionaryTypeSyntax.self) {
            return self.dictionary(key: dictionary.key, value: dictionary.value, at: site)
        }
        if let attributed = syntax.as(AttributedTypeSyntax.self) { return map(attributed.baseType, at: site) }
        if let tuple = syntax.as(TupleTypeSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first,
            only.firstName == nil
        {
            return map(only.type, at: site)
        }
        if let (path, arguments) = Self.named(syntax) { return mapNamed(path, arguments, syntax, at: site) }
        warn(
            site,
            "\(site.subject) is `\(syntax.trimmedDescription)`, which has no JSON shape `hybrid types` knows, so it "
                + "is unknown: use a Codable struct, enum, array or [String: T] there")
        return .unknown
    }

    /// A plain or member type name as components, with the generic arguments of its last component.
    static func named(_ syntax: TypeSyntax) -> ([String], [TypeSyntax])? {
        func arguments(_ clause: GenericArgumentClauseSyntax?) -> [TypeSyntax] {
            clause?.arguments.compactMap { argument -> TypeSyntax? in
                if case .type(let type) = argument.argument { return type }
                return nil
            } ?? []
        }
        if let identifier = syntax.as(IdentifierTypeSyntax.self) {
            return ([Names.plain(identifier.name)], arguments(identifier.genericArgumentClause))
        }
        if let member = syntax.as(MemberTypeSyntax.self), let base = Names.components(of: member.baseType) {
            return (base + [Names.plain(member.name)], arguments(member.genericArgumentClause))
        }
        return nil
    }

    private mutating func mapNamed(
        _ path: [String], _ arguments: [TypeSyntax], _ syntax: TypeSyntax, at site: UseSite
    ) -> TypeScriptType {
        if path.count == 1, site.generics.contains(path[0]) { return .parameter(path[0]) }
        // HybridKit's own, whichever sources are given (its own declare them with coding of their own).
        if arguments.isEmpty, let last = path.last, Self.bridgeTypes.contains(last),
            path.count == 1 || path == ["HybridKit", last]
        {
            return .keyword(Self.scalars[last] ?? "unknown")
        }
        if let key = catalog.resolve(path, from: site.scope), let declared = catalog[key] {
            if let places = catalog.ambiguous[key] {
                warn(
                    site,
                    "\(site.subject) is `\(syntax.trimmedDescription)`, and \(declared.swiftName) is declared "
                        + "\(places.count) times (\(places.map(\.description).joined(separator: ", ")); types inside "
                        + "functions count as declared beside them), so it is unknown: give them distinct names")
                return .unknown
            }
            if declared.kind == .alias { return expand(declared, at: site) }
            var mapped = arguments.map { map($0, at: site) }
            if mapped.count != declared.genericParameters.count {
                // Inside its own declaration, `Page` means `Page<Element>`.
                guard mapped.isEmpty, site.scope == declared.path else {
                    warn(
                        site,
                        "\(site.subject) is `\(syntax.trimmedDescription)`, whose generic arguments do not match "
                            + "\(declared.swiftName)'s parameters, so it is unknown: write them all")
                    return .unknown
                }
                mapped = declared.genericParameters.map { .parameter($0) }
            }
            need(key)
            return .declared(key: key, arguments: mapped)
        }
        var name = path
        if name.count == 2, Self.modulePrefixes.contains(name[0]) { name.removeFirst() }
        if name.count == 1 {
            switch (name[0], arguments.count) {
            case ("Optional", 1): return map(arguments[0], at: site).orNull
            case (let sequence, 1) where Self.sequences.contains(sequence): return .array(map(arguments[0], at: site))
            case ("Dictionary", 2): return dictionary(key: arguments[0], value: arguments[1], at: site)
            case (let scalar, 0):
                if let keyword = Self.scalars[scalar] { return .keyword(keyword) }
            default: break
            }
        }
        warn(
            site,
            "\(site.subject) is `\(syntax.trimmedDescription)`, which is not declared in the sources given, so it is "
                + "unknown: add the file or folder that declares it to the command")
        return .unknown
    }

    private mutating func expand(_ alias: DeclaredType, at site: UseSite) -> TypeScriptType {
        guard let target = alias.aliasTarget, expandingAliases.insert(alias.key).inserted else {
            warn(site, "\(site.subject) uses the type alias \(alias.swiftName), which refers to itself: it is unknown")
            return .unknown
        }
        defer { expandingAliases.remove(alias.key) }
        let aliasSite = UseSite(
            scope: Array(alias.path.dropLast()), generics: [], position: site.position, subject: site.subject)
        return map(target, at: aliasSite)
    }

    /// `[K: V]`: an object when K is a String, an integer (its keys written in decimal) or CodingKeyRepresentable;
    /// JSONEncoder writes any other dictionary as an array of alternating keys and values.
    private mutating func dictionary(key: TypeSyntax, value: TypeSyntax, at site: UseSite) -> TypeScriptType {
        let mappedValue = map(value, at: site)
        if let (path, _) = Self.named(key) {
            if let resolved = catalog.resolve(path, from: site.scope), let declared = catalog[resolved],
                declared.kind == .enumeration, declared.inherited.contains("CodingKeyRepresentable")
            {
                if declared.inherited.first == "String" {
                    need(resolved)
                    return .record(key: .declared(key: resolved, arguments: []), value: mappedValue)
                }
                return .record(key: .keyword("string"), value: mappedValue)
            }
            let name = path.count == 2 && Self.modulePrefixes.contains(path[0]) ? path[1] : path.joined(separator: ".")
            if name == "String" || Self.integerRawTypes.contains(name) {
                return .record(key: .keyword("string"), value: mappedValue)
            }
        }
        warn(
            site,
            "\(site.subject) is a dictionary keyed by `\(key.trimmedDescription)`, which JSONEncoder writes as an "
                + "array of alternating keys and values, so it is unknown: key it by String (or make the key "
                + "CodingKeyRepresentable)")
        return .unknown
    }

    // MARK: Declarations

    private mutating func need(_ key: String) {
        guard met.insert(key).inserted else { return }
        pending.append(key)
        order.append(key)
    }

    /// Declares every type met so far, and those their declarations meet in turn.
    mutating func declarePending() {
        while !pending.isEmpty {
            let key = pending.removeFirst()
            guard let type = catalog[key] else { continue }
            declarations[key] = declare(type)
        }
    }

    private mutating func declare(_ type: DeclaredType) -> Declaration {
        if let coding = type.customCoding {
            let because = "it encodes or decodes itself"
            warn(
                type.position,
                "\(type.swiftName) is unknown to TypeScript: \(because) (\(coding)), so its JSON shape is its own; "
                    + "describe it in TypeScript yourself, or let Codable synthesize its coding")
            return Declaration(type: type, body: .alias(.unknown), untypedBecause: because)
        }
        switch type.kind {
        case .structure, .classType:
            if type.kind == .classType, let superclass = type.inherited.first,
                let key = catalog.resolve(superclass.split(separator: ".").map(String.init), from: type.path),
                catalog[key]?.kind == .classType
            {
                let because = "it is a subclass of \(superclass), whose coding decides its shape"
                warn(type.position, "\(type.swiftName) is unknown to TypeScript: \(because); describe it yourself")
                return Declaration(type: type, body: .alias(.unknown), untypedBecause: because)
            }
            return Declaration(type: type, body: .interface(properties(of: type)), untypedBecause: nil)
        case .enumeration:
            return enumeration(type)
        case .alias:
            // Never reached: an alias is expanded where it is used (mapNamed), never declared.
            guard let target = type.aliasTarget else {
                return Declaration(type: type, body: .alias(.unknown), untypedBecause: "an alias without a target")
            }
            let site = UseSite(
                scope: Array(type.path.dropLast()), generics: [], position: type.position,
                subject: "the type alias \(type.swiftName)")
            return Declaration(type: type, body: .alias(map(target, at: site)), untypedBecause: nil)
        }
    }

    private mutating func properties(of type: DeclaredType) -> [Declaration.Property] {
        var encoded: [(StoredProperty, String)] = type.properties.map { ($0, $0.name) }
        if let keys = type.codingKeys {
            encoded = keys.keys.compactMap { entry in
                type.properties.first { $0.name == entry.property }.map { ($0, entry.key) }
            }
        }
        let generics = Set(type.genericParameters)
        return encoded.map { property, key in
            let site = UseSite(
                scope: type.path, generics: generics, position: property.position,
                subject: "property '\(property.name)' of \(type.swiftName)")
            if let wrapper = property.wrapper {
                warn(
                    site,
                    "\(site.subject) is wrapped by @\(wrapper), and the wrapper is what gets encoded, so it is "
                        + "unknown: encode the plain value (or describe it in TypeScript yourself)")
                return Declaration.Property(name: key, type: .unknown, optional: false, note: "wrapped by @\(wrapper)")
            }
            guard let syntax = property.type else {
                if let literal = property.literalType, let keyword = Self.scalars[literal] {
                    return Declaration.Property(name: key, type: .keyword(keyword), optional: false, note: nil)
                }
                warn(
                    site,
                    "\(site.subject) has no type annotation, so it is unknown: write `var \(property.name): Type = …`")
                return Declaration.Property(name: key, type: .unknown, optional: false, note: "type inferred")
            }
            // An optional property is left out of the JSON when nil (encodeIfPresent).
            let (wrapped, optional) = Self.unwrapped(syntax)
            // Date and Data as Foundation's, not a type of the app's so named.
            let note = Self.named(wrapped).flatMap { path, _ in
                catalog.resolve(path, from: type.path) == nil ? Self.notes[path.last ?? ""] : nil
            }
            return Declaration.Property(name: key, type: map(wrapped, at: site), optional: optional, note: note)
        }
    }

    /// `T?`, `T!` and `Optional<T>` as `T` and true; any other type as itself and false.
    static func unwrapped(_ syntax: TypeSyntax) -> (TypeSyntax, Bool) {
        if let optional = syntax.as(OptionalTypeSyntax.self) { return (optional.wrappedType, true) }
        if let optional = syntax.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return (optional.wrappedType, true) }
        if let (path, arguments) = named(syntax), arguments.count == 1,
            path == ["Optional"] || path == ["Swift", "Optional"]
        {
            return (arguments[0], true)
        }
        return (syntax, false)
    }

    private mutating func enumeration(_ type: DeclaredType) -> Declaration {
        let rawType = type.inherited.first.map { $0.hasPrefix("Swift.") ? String($0.dropFirst(6)) : $0 }
        if type.cases.isEmpty {
            return Declaration(type: type, body: .alias(.keyword("never")), untypedBecause: nil)
        }
        if let rawType, rawType == "String" || rawType == "Character" {
            var literals: [TypeScriptType] = []
            for element in type.cases {
                guard let value = element.rawValue.map(Self.stringLiteral) ?? (rawType == "String" ? element.name : nil)
                else { return untypedRawValue(type, element) }
                let literal = TypeScriptType.literal(TypeScriptNames.quoted(value))
                if !literals.contains(literal) { literals.append(literal) }
            }
            return Declaration(type: type, body: .alias(.union(literals)), untypedBecause: nil)
        }
        if let rawType, Self.integerRawTypes.contains(rawType) || Self.floatRawTypes.contains(rawType) {
            var literals: [TypeScriptType] = []
            var next = 0.0
            for element in type.cases {
                let value: Double
                if let raw = element.rawValue {
                    guard let number = Self.numberLiteral(raw) else { return untypedRawValue(type, element) }
                    value = number
                } else {
                    value = next
                }
                next = value + 1
                let literal = TypeScriptType.literal(Self.written(value))
                if !literals.contains(literal) { literals.append(literal) }
            }
            return Declaration(type: type, body: .alias(.union(literals)), untypedBecause: nil)
        }
        if type.codingKeys != nil {
            let because = "its cases are renamed by CodingKeys"
            warn(type.position, "\(type.swiftName) is unknown to TypeScript: \(because); describe it yourself")
            return Declaration(type: type, body: .alias(.unknown), untypedBecause: because)
        }
        // Synthesized coding of an enum without raw values: {"case": {"label": …, "_1": …}}.
        let generics = Set(type.genericParameters)
        let members: [TypeScriptType] = type.cases.map { element in
            let fields = element.parameters.enumerated().map { index, parameter -> TypeScriptType.Field in
                let site = UseSite(
                    scope: type.path, generics: generics, position: element.position,
                    subject: "case '\(element.name)' of \(type.swiftName)")
                let (wrapped, optional) = Self.unwrapped(parameter.type)
                return TypeScriptType.Field(
                    name: parameter.label ?? "_\(index)", type: map(wrapped, at: site), optional: optional)
            }
            return .object([TypeScriptType.Field(name: element.name, type: .object(fields), optional: false)])
        }
        return Declaration(type: type, body: .alias(.union(members)), untypedBecause: nil)
    }

    private mutating func untypedRawValue(_ type: DeclaredType, _ element: EnumCase) -> Declaration {
        let because = "the raw value of case '\(element.name)' is not a literal"
        warn(element.position, "\(type.swiftName) is unknown to TypeScript: \(because); write it as a literal")
        return Declaration(type: type, body: .alias(.unknown), untypedBecause: because)
    }

    static func stringLiteral(_ expression: ExprSyntax) -> String? {
        expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue
    }

    static func numberLiteral(_ expression: ExprSyntax) -> Double? {
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return numberLiteral(prefix.expression).map { -$0 }
        }
        if let integer = expression.as(IntegerLiteralExprSyntax.self) {
            return integer.representedLiteralValue.map(Double.init)
        }
        return expression.as(FloatLiteralExprSyntax.self)?.representedLiteralValue
    }

    /// A number as JSON writes it: `3`, not `3.0`.
    static func written(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
