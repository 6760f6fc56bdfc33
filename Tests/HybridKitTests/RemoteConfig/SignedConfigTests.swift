import Foundation
import HybridKit
import HybridPackages
import Testing

@Suite struct SignedConfigTests {
    let key = PackageKeyPair.generate()

    @Test func aSignedConfigOpensWithTheTrustedKey() throws {
        let envelope = try SignedConfig.sign(sampleConfig(version: 3), with: key)
        let config = try SignedConfig.open(envelope, trusting: key.verificationKey)
        #expect(config == sampleConfig(version: 3))
        #expect(config.isHookEnabled("fetch") == false)
        #expect(config.isHookEnabled("form"), "hooks not listed keep the default")
        #expect(config.bridgePermission(module: "camera", origin: "https://shop.example.com") == true)
        #expect(config.bridgePermission(module: "camera", origin: "https://evil.example") == false)
        #expect(config.bridgePermission(module: "log", origin: "https://any.example") == true)
        #expect(config.bridgePermission(module: "unlisted", origin: "https://shop.example.com") == nil)
        #expect(config.isDegraded(try #require(URL(string: "https://legacy.example.com/old/page.html"))))
        #expect(!config.isDegraded(try #require(URL(string: "https://legacy.example.com/new/"))))
    }

    @Test func aChangedDocumentFailsTheSignature() throws {
        let envelope = try SignedConfig.sign(sampleConfig(version: 3), with: key)
        var object = try #require(JSONSerialization.jsonObject(with: envelope) as? [String: Any])
        let encoded = try #require(object["document"] as? String)
        let document = try #require(Data(base64Encoded: encoded))
        let altered = Data(
            String(decoding: document, as: UTF8.self).replacingOccurrences(of: "false", with: "true ").utf8)
        object["document"] = altered.base64EncodedString()
        let tampered = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: ConfigError.signatureInvalid) {
            try SignedConfig.open(tampered, trusting: key.verificationKey)
        }
    }

    @Test func anotherKeyIsReportedAsSuch() throws {
        let other = PackageKeyPair.generate()
        let envelope = try SignedConfig.sign(sampleConfig(version: 3), with: other)
        #expect(
            throws: ConfigError.untrustedSigningKey(
                signedBy: other.verificationKey.keyID, trusted: key.verificationKey.keyID)
        ) { try SignedConfig.open(envelope, trusting: key.verificationKey) }
    }

    @Test func expiredAndInconsistentDocumentsAreRefused() throws {
        // Whole seconds: the document carries ISO 8601 dates without fractions.
        let nowSeconds = Date().timeIntervalSince1970.rounded(.down)
        let past = Date(timeIntervalSince1970: nowSeconds - 60)
        #expect(throws: ConfigError.expired(past)) {
            try SignedConfig.sign(sampleConfig(version: 1, expiresAt: past), with: key)
        }
        let future = Date(timeIntervalSince1970: nowSeconds + 3600)
        let envelope = try SignedConfig.sign(sampleConfig(version: 1, expiresAt: future), with: key)
        #expect(throws: ConfigError.expired(future)) {
            try SignedConfig.open(envelope, trusting: key.verificationKey, now: future.addingTimeInterval(1))
        }

        var badScript = sampleConfig(version: 1)
        badScript.scripts[0].source = "alert(1)"
        #expect(throws: ConfigError.scriptHashMismatch(name: "fix-scroll")) {
            try SignedConfig.sign(badScript, with: key)
        }
        var badPrefix = sampleConfig(version: 1)
        badPrefix.degradedPrefixes = ["legacy/"]
        #expect(throws: ConfigError.self) { try SignedConfig.sign(badPrefix, with: key) }
        #expect(throws: ConfigError.self) { try SignedConfig.open(Data("{}".utf8), trusting: key.verificationKey) }
    }

    @Test func aScriptWithoutInlineSourceIsCheckedByHash() throws {
        let script = ReplacementScript(name: "x", source: "console.log(1)")
        #expect(script.matches(Data("console.log(1)".utf8)))
        #expect(!script.matches(Data("console.log(2)".utf8)))
    }
}
