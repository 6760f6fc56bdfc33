#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitGTK
import Testing

extension TestPage {
    /// Evaluates `expression` (a promise or any value), waits for it to settle and decodes its value. Evaluation
    /// itself returns no promise's value, so the settled value is parked in the page and read back.
    func settle<T: Decodable>(_ expression: String, as type: T.Type = T.self, timeout: Duration = .seconds(30))
        async throws -> T
    {
        let slot = "__settled\(UInt32.random(in: 0...UInt32.max))"
        _ = try await view.evaluateJavaScript(
            """
            window.\(slot) = null;
            Promise.resolve().then(() => (\(expression))).then(
              (value) => { window.\(slot) = { ok: JSON.stringify(value === undefined ? null : value) }; },
              (error) => { window.\(slot) = { error: `${error && error.code}: ${error && error.message}` }; });
            true
            """)
        try await waitFor("window.\(slot) !== null", timeout: timeout)
        let settled: SettledPromise = try await evaluate("window.\(slot)")
        guard let text = settled.ok else { throw PromiseRejected(reason: settled.error ?? "unknown") }
        return try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }
}

/// A settled promise: its value as JSON text, or why it rejected.
struct SettledPromise: Decodable {
    let ok: String?
    let error: String?
}

struct PromiseRejected: Error, CustomStringConvertible {
    let reason: String
    var description: String { "the page's promise rejected: \(reason)" }
}
#endif
