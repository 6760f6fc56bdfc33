import Foundation
import HybridCookies
import Synchronization

/// A clock tests move by hand.
final class ManualCookieClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(_ seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    var clock: CookieClock { { [self] in self.now } }
}

func testURL(_ text: String) -> URL {
    guard let url = URL(string: text) else { fatalError("bad test URL \(text)") }
    return url
}

func makeCookieJar(_ configure: (inout CookieJarConfiguration) -> Void = { _ in }) -> (
    CookieJar, ManualCookieClock
) {
    var configuration = CookieJarConfiguration()
    configure(&configuration)
    let clock = ManualCookieClock()
    return (CookieJar(configuration: configuration, clock: clock.clock), clock)
}

extension CookieJar {
    /// Set-Cookie from an HTTP response to `urlText`, same-site.
    @discardableResult
    func set(_ header: String, _ urlText: String) -> CookieSetResult {
        setCookie(header, for: .http(testURL(urlText)))
    }

    /// Cookie header for an HTTP same-site request ("" when none).
    func header(_ urlText: String) -> String {
        cookieHeader(for: .http(testURL(urlText))) ?? ""
    }
}

func makeCookieTestDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("hybrid-cookies-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}
