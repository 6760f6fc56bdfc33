import Foundation
import Testing

@testable import HybridCookies

@Suite("Set-Cookie parsing (RFC 6265bis §5.6)")
struct SetCookieParserTests {
    let now = Date(timeIntervalSince1970: 1_600_000_000)
    let parser = SetCookieParser()

    func parse(_ header: String) throws -> ParsedSetCookie {
        try parser.parse(header, now: now)
    }

    @Test func nameAndValueSplitAtFirstEquals() throws {
        let cookie = try parse("a=b=c; Path=/")
        #expect(cookie.name == "a")
        #expect(cookie.value == "b=c")
    }

    @Test func whitespaceAroundNameAndValueIsTrimmed() throws {
        let cookie = try parse(" \tname \t= va lue \t; secure")
        #expect(cookie.name == "name")
        #expect(cookie.value == "va lue")
        #expect(cookie.secure)
    }

    @Test func namelessCookie() throws {
        let cookie = try parse("justavalue; Path=/x")
        #expect(cookie.name == "")
        #expect(cookie.value == "justavalue")
        let emptyName = try parse("=v")
        #expect(emptyName.name == "" && emptyName.value == "v")
    }

    @Test func emptyValueIsAllowed() throws {
        let cookie = try parse("a=")
        #expect(cookie.name == "a" && cookie.value == "")
    }

    @Test func emptyNameAndValueRejected() {
        #expect(throws: CookieRejection.emptyNameAndValue) { try parse("=") }
        #expect(throws: CookieRejection.emptyNameAndValue) { try parse("; Path=/") }
    }

    @Test func quotedValuesAreKeptVerbatim() throws {
        let cookie = try parse("q=\"hello world\"; Path=/")
        #expect(cookie.value == "\"hello world\"")
        let withSemicolon = try parse("q=\"a;b\"")  // the ';' still ends the pair (browsers agree)
        #expect(withSemicolon.value == "\"a")
    }

    @Test func commaInsideValueIsKept() throws {
        let cookie = try parse("list=a,b,c")
        #expect(cookie.value == "a,b,c")
    }

    @Test func controlCharactersRejectTheHeader() {
        #expect(throws: CookieRejection.controlCharacter) { try parse("a=b\u{01}") }
        #expect(throws: CookieRejection.controlCharacter) { try parse("a=b\nc") }
        #expect(throws: CookieRejection.controlCharacter) { try parse("a=b\u{7F}") }
    }

    @Test func tabIsAllowedInsideValue() throws {
        #expect(try parse("a=b\tc").value == "b\tc")
    }

    @Test func sizeLimits() throws {
        let name = String(repeating: "n", count: 96)
        #expect(try parse(name + "=" + String(repeating: "v", count: 4000)).value.count == 4000)
        #expect(throws: CookieRejection.nameValueTooLong) {
            try parse(name + "=" + String(repeating: "v", count: 4001))
        }
        // An attribute value over 1024 bytes drops only that attribute.
        let cookie = try parse("a=b; Path=/" + String(repeating: "p", count: 1024) + "; Secure")
        #expect(cookie.path == nil)
        #expect(cookie.secure)
    }

    @Test func attributesAreCaseInsensitiveAndLastWins() throws {
        let cookie = try parse(
            "a=b; PATH=/one; path=/two; DOMAIN=Example.COM; SeCuRe; HTTPONLY; samesite=STRICT")
        #expect(cookie.path == "/two")
        #expect(cookie.domain == "example.com")
        #expect(cookie.secure && cookie.httpOnly)
        #expect(cookie.sameSite == .strict)
        let lastDomain = try parse("a=b; Domain=a.example.com; Domain=b.example.com")
        #expect(lastDomain.domain == "b.example.com")
    }

    @Test func unknownAttributesAreIgnored() throws {
        let cookie = try parse("a=b; Priority=High; Partitioned; Foo=bar=baz; ; Version=1")
        #expect(cookie == ParsedSetCookie(name: "a", value: "b"))
    }

    @Test func domainLeadingDotRemovedAndEmptyIgnored() throws {
        #expect(try parse("a=b; Domain=.example.com").domain == "example.com")
        #expect(try parse("a=b; Domain=").domain == nil)
        #expect(try parse("a=b; Domain=example.com; Domain=").domain == "example.com")
    }

    @Test func invalidPathMeansDefaultPath() throws {
        #expect(try parse("a=b; Path=").path == "")
        #expect(try parse("a=b; Path=relative").path == "")
        #expect(try parse("a=b").path == nil)
    }

    @Test func expiresWithCommaParses() throws {
        let cookie = try parse("a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Path=/")
        #expect(cookie.expires == Date(timeIntervalSince1970: 1_623_233_894))
        #expect(cookie.path == "/")
    }

    @Test func badExpiresIgnored() throws {
        #expect(try parse("a=b; Expires=tomorrow").expires == nil)
    }

    @Test func expiresCappedAt400Days() throws {
        let cookie = try parse("a=b; Expires=Fri, 01 Jan 2100 00:00:00 GMT")
        #expect(cookie.expires == now.addingTimeInterval(400 * 86_400))
    }

    @Test func maxAgeParsing() throws {
        #expect(try parse("a=b; Max-Age=60").maxAgeExpiry == now.addingTimeInterval(60))
        #expect(try parse("a=b; Max-Age=0").maxAgeExpiry == .distantPast)
        #expect(try parse("a=b; Max-Age=-5").maxAgeExpiry == .distantPast)
        #expect(
            try parse("a=b; Max-Age=99999999999999999999999").maxAgeExpiry
                == now.addingTimeInterval(400 * 86_400))
        #expect(try parse("a=b; Max-Age=+5").maxAgeExpiry == nil)
        #expect(try parse("a=b; Max-Age=5s").maxAgeExpiry == nil)
        #expect(try parse("a=b; Max-Age=").maxAgeExpiry == nil)
        #expect(try parse("a=b; Max-Age=-").maxAgeExpiry == nil)
    }

    @Test func maxAgeTakesPrecedenceOverExpires() throws {
        let both = try parse("a=b; Max-Age=60; Expires=Wed, 09 Jun 2021 10:18:14 GMT")
        #expect(both.effectiveExpiry == now.addingTimeInterval(60))
        let reversed = try parse("a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Max-Age=60")
        #expect(reversed.effectiveExpiry == now.addingTimeInterval(60))
    }

    @Test func sameSiteValues() throws {
        #expect(try parse("a=b; SameSite=Lax").sameSite == .lax)
        #expect(try parse("a=b; SameSite=None").sameSite == CookieSameSite.none)
        #expect(try parse("a=b; SameSite=bogus").sameSite == .unspecified)
        #expect(try parse("a=b; SameSite=Strict; SameSite=bogus").sameSite == .unspecified)
        #expect(try parse("a=b").sameSite == nil)
    }
}

@Suite("Splitting combined Set-Cookie strings")
struct SetCookieHeaderSplitterTests {
    @Test func keepsCommaInsideExpires() {
        let combined = "a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Path=/, b=2; Path=/x,c=3"
        #expect(
            SetCookieHeaderSplitter.split(combined) == [
                "a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Path=/", "b=2; Path=/x", "c=3",
            ])
    }

    @Test func singleCookieUntouched() {
        #expect(
            SetCookieHeaderSplitter.split("a=1; Expires=Wednesday, 09-Jun-21 10:18:14 GMT") == [
                "a=1; Expires=Wednesday, 09-Jun-21 10:18:14 GMT"
            ])
    }

    @Test func valueCommaWithoutFollowingTokenStays() {
        #expect(SetCookieHeaderSplitter.split("list=a, b, c; Path=/") == ["list=a, b, c; Path=/"])
    }

    @Test func emptyInput() {
        #expect(SetCookieHeaderSplitter.split("").isEmpty)
    }
}
