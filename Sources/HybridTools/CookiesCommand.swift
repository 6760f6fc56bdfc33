import ArgumentParser
import Foundation
import HybridCookies

public struct CookiesCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cookies",
        abstract: "Run cookie commands from standard input against a fresh in-memory RFC 6265 jar.",
        discussion: """
            One command per line:
              SET <request-url> <Set-Cookie header value>   store what a response to that URL would store
              GET <request-url>                            print the Cookie header the jar would send (empty line: none)
            The header value is everything after the single space that follows the URL, exactly as a server sent it.
            Blank lines and lines starting with # are ignored. Requests are HTTP requests made by the app itself
            (same-site). Malformed lines are reported on standard error; a GET always prints exactly one line, so
            output stays aligned with the GETs of the input. Exits with status 1 if any line was malformed.

            Example:
              printf 'SET https://a.example/ sid=1; Path=/; HttpOnly\\nGET https://a.example/x\\n' | hybrid cookies
            """)

    public func run() throws {
        let script = CookieScript()
        var malformed = 0
        while let line = readLine(strippingNewline: true) {
            switch script.execute(line) {
            case .output(let text):
                print(text)
            case .silent:
                break
            case .error(let message):
                malformed += 1
                FileHandle.standardError.write(Data("hybrid cookies: \(message)\n".utf8))
                if line.hasPrefix("GET ") { print("") }
            }
        }
        if malformed > 0 { throw ExitCode(1) }
    }

    public init() {}
}
