import Foundation
import HybridKit

/// Serves the files of one directory under a custom scheme (`app://demo/bridge/index.html`).
/// A stand-in for the offline-package handler in tests (and the repository's demo and benchmarks): just enough to
/// serve fixture pages, with the one check that must never be missing — no path may leave the directory.
public final class DirectorySchemeHandler: SchemeHandler {
    private let root: URL

    /// Serves the files under `root`; the host of a request's URL is ignored.
    public init(root: URL) {
        self.root = root.standardizedFileURL
    }

    public func start(_ task: any SchemeTask) {
        let path = task.request.url.path.removingPercentEncoding ?? ""
        let file = root.appendingPathComponent(path).standardizedFileURL
        guard file.path.hasPrefix(root.path + "/") else {
            task.fail(.forbidden("\(path) is outside the served directory"))
            return
        }
        guard let data = try? Data(contentsOf: file) else {
            task.respond(status: 404, headers: ["Content-Type": "text/plain"], body: Data("not found: \(path)".utf8))
            return
        }
        task.respond(headers: ["Content-Type": Self.mimeType(file.pathExtension)], body: data)
    }

    public func stop(_ task: any SchemeTask) {}

    static func mimeType(_ fileExtension: String) -> String {
        switch fileExtension.lowercased() {
        case "html", "htm": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }
}
