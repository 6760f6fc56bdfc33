import Foundation

/// Why `hybrid run` stopped; each message says what to do. Exits with status 1.
enum RunError: Error, CustomStringConvertible {
    case emptyTarget
    case notFound(String)
    case notAnApp(String)
    case unsupportedScheme(String)
    case badURL(String)
    case badPrefix(String)
    case badOrigin(String)
    case zipNeedsKey(String)
    case badKey(path: String, reason: String)
    case packageRefused(path: String, reason: String)
    case noDisplay
    case runtimeFailed(String)
    case loadFailed(url: String, reason: String)
    case loadTimedOut(url: String, seconds: Int)
    case screenshotFailed(String)

    var description: String {
        switch self {
        case .emptyTarget:
            "nothing to run: give a directory holding index.html, a signed package .zip, or an http(s) URL"
        case .notFound(let path):
            "'\(path)' does not exist: give a directory holding index.html, a signed package .zip, or an http(s) URL"
        case .notAnApp(let path):
            "'\(path)' is neither a directory nor a .zip package: give a directory holding index.html, a package "
                + "built with `hybrid pack`, or an http(s) URL"
        case .unsupportedScheme(let text):
            "'\(text)' is not an http(s) URL; give http://… or https://…, a directory, or a package .zip"
        case .badURL(let text):
            "'\(text)' is not a URL with a host, such as http://127.0.0.1:8080/"
        case .badPrefix(let reason):
            "--serves: \(reason)"
        case .badOrigin(let text):
            "--origin '\(text)' is not an http(s) origin such as http://127.0.0.1:8080"
        case .zipNeedsKey(let path):
            "'\(path)' is a package: give the public key it must be signed with, `--public-key keys/app.public` "
                + "(made by `hybrid keygen`); to run files that are not signed, give their directory instead"
        case .badKey(let path, let reason):
            "--public-key '\(path)': \(reason)"
        case .packageRefused(let path, let reason):
            "'\(path)' was refused: \(reason)"
        case .noDisplay:
            "no display (DISPLAY is not set): run it in a desktop session or under `xvfb-run -a hybrid run …`, "
                + "or render once without a window with `--screenshot out.png`"
        case .runtimeFailed(let reason):
            "WebKitGTK could not start: \(reason)"
        case .loadFailed(let url, let reason):
            "could not load \(url): \(reason); check that the server is running and the URL is right"
        case .loadTimedOut(let url, let seconds):
            "\(url) did not finish loading within \(seconds) s; check the server, or give more time with --timeout"
        case .screenshotFailed(let reason):
            "could not save the screenshot: \(reason)"
        }
    }
}
