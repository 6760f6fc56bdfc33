import Testing

@testable import HybridKit

@Suite struct ModuleRegistryTests {
    let registry = ModuleRegistry([
        BridgeModule("a", access: .origins("https://app.example")) { module in
            module.method("one") { (_: NoArguments, _) in 1 }
            module.forward("two", to: "b", method: "twice")
            module.forward("loop", to: "a", method: "loop")
            module.forward("private", to: "c", method: "secret")
        },
        BridgeModule("b", access: .origins("https://app.example", allowsSubframes: true)) { module in
            module.method("twice") { (n: Int, _) in n * 2 }
        },
        BridgeModule("c", access: .origins("https://other.example")) { module in
            module.method("secret") { (_: NoArguments, _) in "s" }
        },
    ])

    private func code(_ module: String, _ method: String, origin: String = "https://app.example", main: Bool = true)
        -> BridgeError.Code?
    {
        do {
            _ = try registry.resolve(module: module, method: method, origin: origin, isMainFrame: main)
            return nil
        } catch { return error.code }
    }

    @Test func resolvesDirectAndForwardedMethods() throws {
        #expect(
            try registry.resolve(module: "a", method: "one", origin: "https://app.example", isMainFrame: true).name
                == "one")
        let forwarded = try registry.resolve(
            module: "a", method: "two", origin: "https://app.example", isMainFrame: true)
        #expect(forwarded.module.name == "b")
        #expect(forwarded.name == "twice")
    }

    @Test func typedFailures() {
        #expect(code("nope", "x") == .unknownModule)
        #expect(code("a", "nope") == .unknownMethod)
        #expect(code("a", "one", origin: "https://evil.example") == .denied)
        #expect(code("a", "one", main: false) == .denied)
        #expect(code("b", "twice", main: false) == nil)
        #expect(code("a", "loop") == .internalError)
        // Forwarding does not launder access: the target module's rules apply too.
        #expect(code("a", "private") == .denied)
    }

    @Test func originsCompareCaseInsensitively() {
        #expect(code("a", "one", origin: "HTTPS://APP.EXAMPLE") == nil)
    }

    @Test func catalogListsMethods() {
        #expect(registry.catalog["a"] == ["loop", "one", "private", "two"])
    }

    @Test func aNarrowingOverrideOnlyTakesAccessAway() {
        registry.setAccessOverrides(["a": AccessOverride(origins: ["https://other.example"])])
        defer { registry.setAccessOverrides([:]) }
        // Neither the module's own origin (withdrawn) nor the override's (never granted by the module).
        #expect(code("a", "one") == .denied)
        #expect(code("a", "one", origin: "https://other.example") == .denied)
        // Other modules keep their own rules.
        #expect(code("b", "twice") != .denied)
    }

    @Test func aReplacingOverrideSetsTheOriginsButKeepsTheFrameRule() {
        registry.setAccessOverrides(["a": AccessOverride(origins: ["HTTPS://Other.Example"], mode: .replace)])
        defer { registry.setAccessOverrides([:]) }
        #expect(code("a", "one", origin: "https://other.example") == nil)
        #expect(code("a", "one") == .denied)
        #expect(code("a", "one", origin: "https://other.example", main: false) == .denied)
    }

    @Test func overridesApplyAtEveryForwardingHop() {
        // a.two forwards to b.twice: withdrawing b stops the forwarded call too.
        registry.setAccessOverrides(["b": AccessOverride(origins: [])])
        defer { registry.setAccessOverrides([:]) }
        #expect(code("a", "two") == .denied)
        registry.setAccessOverrides(["b": AccessOverride(origins: ["*"])])
        #expect(code("a", "two") != .denied)
    }
}
