/// A TypeScript type as the declarations write it. Declared types are named by their Swift key until the writer
/// has picked their TypeScript names.
indirect enum TypeScriptType: Equatable, Sendable {
    /// `string`, `number`, `boolean`, `null`, `unknown`, `never`.
    case keyword(String)
    /// A type the sources declare, by its Swift key, with generic arguments.
    case declared(key: String, arguments: [TypeScriptType])
    /// A generic parameter of the declaration it is used in.
    case parameter(String)
    case array(TypeScriptType)
    /// `Record<string, Value>`; with literal keys, `Partial<Record<Keys, Value>>` (not every key need be there).
    case record(key: TypeScriptType, value: TypeScriptType)
    case union([TypeScriptType])
    /// A string or number literal, already written as TypeScript.
    case literal(String)
    case object([Field])

    struct Field: Equatable, Sendable {
        let name: String
        let type: TypeScriptType
        let optional: Bool
    }

    static let unknown = TypeScriptType.keyword("unknown")
    static let null = TypeScriptType.keyword("null")

    /// `T | null`, flattened.
    var orNull: TypeScriptType {
        switch self {
        case .union(let members): members.contains(.null) ? self : .union(members + [.null])
        case .keyword("null"), .keyword("unknown"): self
        default: .union([self, .null])
        }
    }

    /// Written out, with `names` giving each declared key its TypeScript name.
    func written(_ names: [String: String]) -> String {
        switch self {
        case .keyword(let word): return word
        case .declared(let key, let arguments):
            let name = names[key] ?? "unknown"
            return arguments.isEmpty ? name : "\(name)<\(arguments.map { $0.written(names) }.joined(separator: ", "))>"
        case .parameter(let name): return name
        case .array(let element):
            let inner = element.written(names)
            switch element {
            case .union, .object: return "(\(inner))[]"
            default: return "\(inner)[]"
            }
        case .record(let key, let value):
            if case .keyword("string") = key { return "Record<string, \(value.written(names))>" }
            return "Partial<Record<\(key.written(names)), \(value.written(names))>>"
        case .union(let members): return members.map { $0.written(names) }.joined(separator: " | ")
        case .literal(let text): return text
        case .object(let fields):
            if fields.isEmpty { return "Record<string, never>" }
            let body = fields.map {
                "\(TypeScriptNames.property($0.name))\($0.optional ? "?" : ""): \($0.type.written(names))"
            }
            return "{ \(body.joined(separator: "; ")) }"
        }
    }

    /// The declared keys this type refers to.
    var declaredKeys: [String] {
        switch self {
        case .declared(let key, let arguments): [key] + arguments.flatMap(\.declaredKeys)
        case .array(let element): element.declaredKeys
        case .record(let key, let value): key.declaredKeys + value.declaredKeys
        case .union(let members): members.flatMap(\.declaredKeys)
        case .object(let fields): fields.flatMap(\.type.declaredKeys)
        case .keyword, .parameter, .literal: []
        }
    }
}

/// How Swift names become TypeScript ones.
enum TypeScriptNames {
    /// A property or method name as a member: bare when it is an identifier, quoted otherwise.
    static func property(_ name: String) -> String {
        isIdentifier(name) && !modifierWords.contains(name) ? name : quoted(name)
    }

    /// Words that, leading an interface member, read as a modifier or a construct signature (`new(): T`) rather
    /// than as its name: quoted, they are plainly names.
    static let modifierWords: Set<String> = [
        "new", "get", "set", "readonly", "private", "public", "protected", "static", "abstract", "declare", "async",
        "constructor", "accessor", "override",
    ]

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first == "$" || isLetter(first) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0 == "$" || isLetter($0) || ("0"..."9").contains($0) }
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    /// A JSON string literal, which TypeScript reads as its string literal too.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    out +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `cart` → `CartModule`, `user-profile` → `UserProfileModule`.
    static func moduleInterface(_ module: String) -> String {
        let parts = module.split { !($0.isLetter || $0.isNumber) || !$0.isASCII }
        var name = parts.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if name.isEmpty || name.first?.isNumber == true { name = "Native" + name }
        return name + "Module"
    }

    /// A parameter name as written, unless JavaScript reserves it (`new`, `function`, `delete`…): then `args`.
    static func parameter(_ name: String) -> String {
        isIdentifier(name) && !reservedWords.contains(name) ? name : "args"
    }

    static let reservedWords: Set<String> = [
        "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "enum",
        "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new", "null",
        "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with", "yield",
        "let", "static", "implements", "interface", "package", "private", "protected", "public", "await", "arguments",
        "eval",
    ]

    /// Names a declaration may not take: the TypeScript types the file itself uses, and type keywords.
    static let reserved: Set<String> = [
        "Record", "Promise", "Partial", "HybridStream", "HybridSynchronous", "HybridModules", "string", "number",
        "boolean", "null", "undefined", "unknown", "never", "any", "object", "symbol", "bigint", "void", "this",
    ]
}
