import Foundation

/// What `hybrid run` opens: a directory (served as an unsigned development package), a signed package zip, or a
/// page on the web.
enum RunTarget: Equatable {
    case directory(URL)
    case package(URL)
    case web(URL)

    /// Reads the argument: an http(s) URL, a path ending in `.zip`, or a directory. Only the form is checked
    /// here; whether the files are usable is the session's business.
    static func parse(_ text: String) throws(RunError) -> RunTarget {
        guard !text.isEmpty else { throw .emptyTarget }
        if let scheme = URL(string: text)?.scheme?.lowercased(), text.contains("://") {
            guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(text) }
            guard let url = URL(string: text), url.host?.isEmpty == false else { throw .badURL(text) }
            return .web(url)
        }
        let file = URL(fileURLWithPath: text).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            throw .notFound(text)
        }
        if isDirectory.boolValue { return .directory(file) }
        guard file.pathExtension.lowercased() == "zip" else { throw .notAnApp(text) }
        return .package(file)
    }
}
