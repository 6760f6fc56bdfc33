import Foundation
import HybridKitTesting
import Testing

@testable import HybridKit

/// Binary calls against the fake engine: the part sizes read without trust, the upload ticket, an upload that
/// never comes, and the scheme handler's answers. (The same paths in real WebKitGTK: BridgeBytesGTKTests.)
@EngineActor
@Suite struct BridgeBytesTests {
    let engine = FakeEngine()

    func makeBridge(_ configure: (inout BridgeConfiguration) -> Void = { _ in }) throws -> BridgeEngine {
        var configuration = BridgeConfiguration()
        configure(&configuration)
        let modules = ModuleRegistry([
            BridgeModule("bin", access: .origins("https://app.example")) { module in
                module.method("size") { (data: Data, _) in data.count }
            }
        ])
        return try BridgeEngine(engine: engine, modules: modules, configuration: configuration)
    }

    @Test func partSizesAreReadOnlyInTheirCanonicalForm() {
        func parse(_ text: String) -> Result<BinaryCallPayload.Parsed, BridgeError> {
            BinaryCallPayload.parse(Array(text.utf8), maxParts: 3, maxTotal: 1000)
        }
        #expect(parse("[4] null") == .success(.init(sizes: [4], argumentsOffset: 4)))
        #expect(parse("[1,0,999] {}") == .success(.init(sizes: [1, 0, 999], argumentsOffset: 10)))
        for refused in [
            "", "[", "[]", "[] x", "[01] x", "[-1] x", "[+1] x", "[1 ,2] x", "[1]x", "[1]", "[a] x",
            "[1,2,3,4] x", "[1001] x", "[600,600] x", "[1234567890123] x",
        ] {
            #expect(throws: BridgeError.self, "'\(refused)'") { try parse(refused).get() }
        }
    }

    /// The encoder writes a placeholder's keys in no fixed order (a chunk once went unflagged when `size` came
    /// first); a quoted key inside a string value is no placeholder.
    @Test func placeholdersAreFoundInEitherKeyOrder() {
        let id = "0123456789abcdef0123456789abcdef"
        #expect(BinaryCoding.mentionsBytes(#"[{"size":1,"$hybridBytes":"\#(id)"}]"#))
        #expect(BinaryCoding.mentionsBytes(#"[{"$hybridBytes":"\#(id)","size":1}]"#))
        #expect(!BinaryCoding.mentionsBytes(#"["a \"$hybridBytes\":\"x\" string, long enough"]"#))
    }

    @Test func aBinaryCallIsAdmittedThenWaitsForItsUploadUntilItsLimit() async throws {
        let bridge = try makeBridge { $0.limits.callTimeout = .milliseconds(200) }
        defer { withExtendedLifetime(bridge) {} }
        let handler = try #require(engine.schemeHandlers["hybrid-bytes"] as? BridgeBytesSchemeHandler)
        engine.post(
            .string("H1 bcall 7 \(PageMessage.token) main https://app.example bin size\n[3] {\"$hybridBytes\":0}"))
        #expect(await waitUntil { (try? engine.deliveredMessages().contains { $0["k"] as? String == "up" }) == true })
        let ticket = try #require(try engine.deliveredMessages().first { $0["k"] as? String == "up" })
        let upload = try #require(ticket["u"] as? String)
        #expect(ticket["id"] as? Int == 7 && ByteRedemptions.isWellFormedID(upload))
        #expect(await bridge.awaitedUploadCount == 1)
        #expect(handler.awaitedUploads == 1)
        // The page never uploads: at the call's limit the call fails with timeout and the id is forgotten.
        #expect(
            await waitUntil(timeout: .seconds(5)) {
                (try? engine.deliveredMessages().contains { $0["k"] as? String == "r" }) == true
            })
        let failure = try #require(try engine.deliveredMessages().first { $0["k"] as? String == "r" })
        #expect((failure["e"] as? [String: Any])?["code"] as? String == "timeout")
        #expect(await bridge.awaitedUploadCount == 0)
        #expect(handler.awaitedUploads == 0)
        #expect(await bridge.pendingCallCount == 0)
        // A late upload under the spent id finds nothing.
        let late = RecordingTask(
            EngineRequest(
                url: try #require(URL(string: "hybrid-bytes://bridge/u/\(upload)")), method: "POST",
                headers: [("Origin", "https://app.example")], body: Data([1, 2, 3])))
        handler.start(late)
        #expect(late.response?.statusCode == 404)
    }

    @Test func anUploadOfAnotherLengthFailsTheCall() async throws {
        let bridge = try makeBridge()
        defer { withExtendedLifetime(bridge) {} }
        let handler = try #require(engine.schemeHandlers["hybrid-bytes"] as? BridgeBytesSchemeHandler)
        engine.post(
            .string("H1 bcall 8 \(PageMessage.token) main https://app.example bin size\n[3] {\"$hybridBytes\":0}"))
        #expect(await waitUntil { (try? engine.deliveredMessages().contains { $0["k"] as? String == "up" }) == true })
        let upload = try #require(try engine.deliveredMessages().first { $0["k"] as? String == "up" }?["u"] as? String)
        let task = RecordingTask(
            EngineRequest(
                url: try #require(URL(string: "hybrid-bytes://bridge/u/\(upload)")), method: "POST",
                headers: [("Origin", "https://app.example")], body: Data([1, 2])))
        handler.start(task)
        let answer = try #require(try JSONSerialization.jsonObject(with: task.body) as? [[String: Any]])
        #expect((answer.first?["e"] as? [String: Any])?["code"] as? String == "bad_arguments")
        #expect(task.response?.headers["Access-Control-Allow-Origin"] == "https://app.example")
        #expect(await bridge.pendingCallCount == 0)
    }
}
