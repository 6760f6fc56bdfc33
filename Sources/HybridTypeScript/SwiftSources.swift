import Foundation

/// One Swift file to read: the path it is named by in warnings and in the declarations' comments, and its text.
public struct SwiftSource: Sendable {
    public let path: String
    public let text: String

    public init(path: String, text: String) {
        self.path = path
        self.text = text
    }

    /// The `.swift` files named by `paths`: files as given, folders searched recursively (hidden folders such as
    /// `.build` skipped), in path order so the output does not depend on the file system's. Each is named by its
    /// path as given, or for a folder's files, the folder's path joined with the file's path inside it.
    public static func read(_ paths: [String]) throws(TypeScriptGeneratorError) -> [SwiftSource] {
        guard !paths.isEmpty else { throw .noSources }
        var found: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .missing(path: path)
            }
            if !isDirectory.boolValue {
                guard path.hasSuffix(".swift") else { throw .notSwift(path: path) }
                found.append(path)
                continue
            }
            let files = swiftFiles(under: path)
            guard !files.isEmpty else { throw .noSwiftFiles(path: path) }
            found += files
        }
        var seen: Set<String> = []
        var sources: [SwiftSource] = []
        for path in found where seen.insert(URL(fileURLWithPath: path).standardizedFileURL.path).inserted {
            guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
            sources.append(SwiftSource(path: path, text: String(decoding: data, as: UTF8.self)))
        }
        return sources
    }

    private static func swiftFiles(under folder: String) -> [String] {
        let root = URL(fileURLWithPath: folder)
        guard
            let walker = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        var files: [String] = []
        let prefix = root.standardizedFileURL.path + "/"
        for case let url as URL in walker where url.pathExtension == "swift" {
            let full = url.standardizedFileURL.path
            guard full.hasPrefix(prefix) else { continue }
            let inside = String(full.dropFirst(prefix.count))
            files.append(folder.hasSuffix("/") ? folder + inside : folder + "/" + inside)
        }
        return files.sorted()
    }
}

/// Why `hybrid types` could not read its sources.
public enum TypeScriptGeneratorError: Error, CustomStringConvertible, Equatable {
    case noSources
    case missing(path: String)
    case notSwift(path: String)
    case noSwiftFiles(path: String)
    case unreadable(path: String)

    public var description: String {
        switch self {
        case .noSources:
            "no sources given: name the Swift files or folders that declare your BridgeModules"
        case .missing(let path):
            "'\(path)' does not exist: name a Swift file or a folder of them"
        case .notSwift(let path):
            "'\(path)' is not a .swift file: name Swift files, or a folder to search"
        case .noSwiftFiles(let path):
            "'\(path)' holds no .swift files (hidden folders such as .build are skipped): name the folder of your modules"
        case .unreadable(let path):
            "'\(path)' cannot be read: check its permissions"
        }
    }
}

/// A place in a source file, for warnings and comments: `file:line`.
public struct SourcePosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let file: String
    public let line: Int

    public var description: String { "\(file):\(line)" }

    public static func < (a: SourcePosition, b: SourcePosition) -> Bool {
        (a.file, a.line) < (b.file, b.line)
    }
}

/// Something the generator could not type: it became `unknown`. Says where, and how to make it typeable.
public struct GeneratorWarning: Sendable, Hashable, CustomStringConvertible {
    public let position: SourcePosition
    public let message: String

    /// As compilers write them, so editors link to the line: `file:line: warning: message`.
    public var description: String { "\(position): warning: \(message)" }
}
