import Foundation

/// The engine of the `hybrid cookies` debugging / conformance subcommand.
///
/// Runs on a fresh jar. Each input line is one command:
/// - `SET <request-url> <Set-Cookie value>` stores what a response to that URL would store. The
///   value is everything after the single space that follows the URL, byte for byte.
/// - `GET <request-url>` produces one output line: the Cookie header the jar would send (empty if none).
/// Blank lines and lines starting with `#` are ignored. Requests are HTTP-API, same-site
/// (as if the app navigated to the URL).
public final class CookieScript: Sendable {
    public let jar: CookieJar

    public init(
        configuration: CookieJarConfiguration = CookieJarConfiguration(),
        clock: @escaping CookieClock = systemCookieClock
    ) {
        jar = CookieJar(configuration: configuration, clock: clock)
    }

    public enum LineResult: Sendable, Hashable {
        /// A line to print on standard output.
        case output(String)
        /// Nothing to print (SET, blank line, comment).
        case silent
        /// A malformed line; the message is meant for standard error.
        case error(String)
    }

    /// Runs one command line.
    public func execute(_ line: String) -> LineResult {
        var line = Substring(line)
        if line.hasSuffix("\r") { line = line.dropLast() }
        if line.allSatisfy({ $0 == " " || $0 == "\t" }) || line.hasPrefix("#") { return .silent }
        if line.hasPrefix("SET ") {
            let rest = line.dropFirst(4)
            guard let space = rest.firstIndex(of: " ") else {
                return .error("SET needs a URL and a Set-Cookie value: \(line)")
            }
            let urlText = rest[..<space]
            let header = rest[rest.index(after: space)...]
            guard let url = URL(string: String(urlText)), url.host != nil else {
                return .error("not an absolute URL with a host: \(urlText)")
            }
            jar.setCookie(String(header), for: .http(url))
            return .silent
        }
        if line.hasPrefix("GET ") {
            let urlText = line.dropFirst(4)
            guard let url = URL(string: String(urlText)), url.host != nil else {
                return .error("not an absolute URL with a host: \(urlText)")
            }
            return .output(jar.cookieHeader(for: .http(url)) ?? "")
        }
        return .error("unknown command (expected SET or GET): \(line)")
    }

    /// Runs a whole script; returns the lines for standard output and the error messages.
    public func run(_ lines: [String]) -> (output: [String], errors: [String]) {
        var output: [String] = []
        var errors: [String] = []
        for line in lines {
            switch execute(line) {
            case .output(let text): output.append(text)
            case .error(let message): errors.append(message)
            case .silent: break
            }
        }
        return (output, errors)
    }

    /// Convenience for a script held in one string (split on "\n").
    public func run(script: String) -> (output: [String], errors: [String]) {
        run(script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }
}
