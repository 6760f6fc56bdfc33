import Foundation
import HybridKit
import HybridKitTesting
import Testing

/// `evaluateJavaScript(_:as:)`: the engine's JSON text decoded into the type asked for.
@EngineActor struct TypedEvaluationTests {
    struct Cart: Decodable, Equatable {
        var items: Int
        var owner: String
    }

    @Test func decodesTheResultAndTurnsAMismatchIntoAScriptError() async throws {
        let engine = FakeEngine()
        engine.evaluationResult = { script in
            switch script {
            case "cart": #"{"items":2,"owner":"ana"}"#
            case "nothing": nil
            default: #""text""#
            }
        }
        #expect(try await engine.evaluateJavaScript("cart", as: Cart.self) == Cart(items: 2, owner: "ana"))
        #expect(try await engine.evaluateJavaScript("nothing", as: Int?.self) == nil)
        await #expect(throws: EngineError.javaScript(#"the result is not a Cart: "text""#)) {
            try await engine.evaluateJavaScript("other", as: Cart.self)
        }
    }
}
