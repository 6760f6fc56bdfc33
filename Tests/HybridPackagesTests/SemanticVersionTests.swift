import HybridPackages
import Testing

/// Goes through the failable parser (a bare literal would use the tests' `ExpressibleByStringLiteral`).
private func parse(_ text: String) -> SemanticVersion? { SemanticVersion(text) }

@Suite struct SemanticVersionTests {
    @Test func parsesAndPrints() {
        #expect(parse("1.2.3")?.description == "1.2.3")
        #expect(parse("1.0.0-beta.2+build.5")?.prerelease == ["beta", "2"])
        #expect(parse("1.0.0-beta.2+build.5")?.build == ["build", "5"])
        for bad in ["", "1", "1.2", "v1.2.3", "01.2.3", "1.2.3-", "1.2.3-01", "1.2.x", "1.2.3.4"] {
            #expect(SemanticVersion(bad) == nil, "\(bad) should not parse")
        }
    }

    @Test func ordersBySemVerPrecedence() {
        let ordered = [
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1", "1.0.0", "1.0.1", "1.2.0", "1.10.0", "2.0.0",
        ].compactMap(parse)
        #expect(ordered.count == 12)
        for (lower, higher) in zip(ordered, ordered.dropFirst()) {
            #expect(lower < higher, "\(lower) < \(higher)")
        }
        #expect(parse("1.0.0+a") == parse("1.0.0+b"))
    }
}
