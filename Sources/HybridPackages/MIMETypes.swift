/// File-extension to MIME type table used when packing. The manifest stores the result, so the app
/// serves exactly what the packer decided and no platform MIME database is consulted at run time.
public enum MIMETypes {
    public static let fallback = "application/octet-stream"

    static let byExtension: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8", "json": "application/json", "map": "application/json",
        "txt": "text/plain; charset=utf-8", "xml": "application/xml", "svg": "image/svg+xml",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp",
        "avif": "image/avif", "ico": "image/x-icon", "woff": "font/woff", "woff2": "font/woff2",
        "ttf": "font/ttf",
        "otf": "font/otf", "wasm": "application/wasm", "mp3": "audio/mpeg", "mp4": "video/mp4",
        "webm": "video/webm", "pdf": "application/pdf", "webmanifest": "application/manifest+json",
    ]

    /// Types whose bytes are already compressed: deflating them again only costs time.
    static let alreadyCompressed: Set<String> = [
        "png", "jpg", "jpeg", "gif", "webp", "avif", "woff", "woff2", "mp3", "mp4", "webm", "zip", "gz",
        "br",
    ]

    /// The MIME type for a package path, by its extension.
    public static func type(forPath path: String) -> String {
        byExtension[fileExtension(path)] ?? fallback
    }

    static func isAlreadyCompressed(_ path: String) -> Bool {
        alreadyCompressed.contains(fileExtension(path))
    }

    private static func fileExtension(_ path: String) -> String {
        let name = path.split(separator: "/").last ?? Substring(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}
