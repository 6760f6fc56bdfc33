import Foundation

extension WebEngine {
    /// Evaluates `script` in the main frame and decodes its result, which the engine gives as JSON text, into `T`.
    ///
    /// `undefined` decodes as JSON `null` (so into an optional `T`). A result that is not a `T` throws
    /// ``EngineError/javaScript(_:)`` naming the type and the result, as a script error would. Runs in the caller's
    /// isolation (the engine's actor), so neither `T` nor its metatype has to be `Sendable`.
    public nonisolated(nonsending) func evaluateJavaScript<T: Decodable>(
        _ script: String, as type: T.Type
    ) async throws(EngineError) -> T {
        let json = try await evaluateJavaScript(script) ?? "null"
        do {
            return try JSONDecoder().decode(T.self, from: Data(json.utf8))
        } catch {
            throw .javaScript("the result is not a \(T.self): \(json.prefix(200))")
        }
    }
}
