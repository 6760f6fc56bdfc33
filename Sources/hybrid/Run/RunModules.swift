import Foundation
import HybridKit

/// The native modules a page gets under `hybrid run`, open to the app's own origin only (main frame), as a
/// shipped app would declare them.
enum RunModules {
    struct Info: Codable, Sendable {
        let host: String
        let target: String
        let development: Bool
        let origin: String
    }
    struct Message: Codable, Sendable { let message: String }
    struct Operands: Codable, Sendable { let a: Double; let b: Double }

    /// - Parameters:
    ///   - origin: the app's origin as the engine reports it (`hybrid://app.localhost`, `http://127.0.0.1:8080`).
    ///   - development: whether the files are an unsigned development package.
    static func make(origin: String, target: String, development: Bool) -> [BridgeModule] {
        [
            BridgeModule("app", access: .origins(origin)) { module in
                module.method("info") { (_: NoArguments, call) in
                    Info(host: "hybrid run", target: target, development: development, origin: call.origin)
                }
                module.method("echo") { (value: JSONValue, _) in value }
                module.method("add") { (operands: Operands, _) in operands.a + operands.b }
                // The page's own line in the terminal, beside the call's.
                module.method("log") { (message: Message, _) in
                    Terminal.line("page    \(Terminal.safe(message.message))")
                    return true
                }
            }
        ]
    }
}
