import Foundation
import Testing

@testable import HybridCookies

@Suite("RFC 6265 §5.1.1 cookie-date parsing")
struct CookieDateParserTests {
    static let june9 = Date(timeIntervalSince1970: 1_623_233_894)  // 2021-06-09 10:18:14 UTC

    @Test(
        "every common server format parses to the same instant",
        arguments: [
            "Wed, 09 Jun 2021 10:18:14 GMT",  // RFC 1123 / IMF-fixdate
            "Wednesday, 09-Jun-21 10:18:14 GMT",  // RFC 850, two-digit year
            "Wed Jun  9 10:18:14 2021",  // asctime
            "Wed, 09-Jun-2021 10:18:14 GMT",  // Netscape
            "Wed, 9 Jun 2021 10:18:14 GMT",  // one-digit day
            "09 Jun 2021 10:18:14",  // no weekday, no zone
            "Wed, 09 JUN 2021 10:18:14 UTC",  // upper-case month, other zone name (ignored)
            "Wed, 09 June 2021 10:18:14 GMT",  // full month name: *OCTET after "jun"
            "2021 Jun 09 10:18:14",  // year first
            "10:18:14 09 Jun 2021",  // time first
            "Wed,09-Jun-2021 10:18:14 GMT",  // no space after comma
            "Wed, 09 Jun 2021 10:18:14 +0000",  // numeric zone (ignored)
            "Wed, 09 Jun 2021 10:18:14GMT",  // time followed by non-digits
        ])
    func parsesKnownFormats(_ text: String) {
        #expect(CookieDateParser.parse(text) == Self.june9)
    }

    @Test("two-digit years: 70–99 → 19xx, 00–69 → 20xx")
    func twoDigitYears() {
        #expect(CookieDateParser.parse("Thu, 01-Jan-70 00:00:01 GMT") == Date(timeIntervalSince1970: 1))
        let y2069 = CookieDateParser.parse("01 Jan 69 00:00:00")
        let y1999 = CookieDateParser.parse("31 Dec 99 23:59:59")
        #expect(y2069 == Date(timeIntervalSince1970: 3_124_224_000))
        #expect(y1999 == Date(timeIntervalSince1970: 946_684_799))
    }

    @Test(
        "invalid dates are rejected",
        arguments: [
            "",
            "Wed, 09 Jun 2021",  // no time
            "Wed, 09 Jun 10:18:14 GMT",  // no year
            "Wed, Jun 2021 10:18:14 GMT",  // no day (2021 is not 1*2DIGIT)
            "Wed, 09 2021 10:18:14 GMT",  // no month
            "Wed, 32 Jun 2021 10:18:14 GMT",  // day 32
            "Wed, 00 Jun 2021 10:18:14 GMT",  // day 0
            "Wed, 09 Jun 2021 24:00:00 GMT",  // hour 24
            "Wed, 09 Jun 2021 10:60:00 GMT",  // minute 60
            "Wed, 09 Jun 2021 10:18:60 GMT",  // second 60
            "Wed, 09 Jun 1600 10:18:14 GMT",  // before 1601
            "Wed, 30 Feb 2021 10:18:14 GMT",  // Feb 30 does not exist
            "Wed, 29 Feb 2021 10:18:14 GMT",  // not a leap year
            "Wed, 09 Jun 20211 10:18:14 GMT",  // five-digit year
            "Wed, 09 Jun 2021 100:18:14 GMT",  // three-digit hour
            "Wed, 09 Jun 2021 10:18 GMT",  // hh:mm only
            "garbage",
        ])
    func rejectsInvalid(_ text: String) {
        #expect(CookieDateParser.parse(text) == nil)
    }

    @Test("leap day and far dates")
    func leapDay() {
        #expect(
            CookieDateParser.parse("29 Feb 2024 00:00:00") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(
            CookieDateParser.parse("01 Jan 1601 00:00:00") == Date(timeIntervalSince1970: -11_644_473_600)
        )
        #expect(
            CookieDateParser.parse("31 Dec 9999 23:59:59") == Date(timeIntervalSince1970: 253_402_300_799)
        )
    }

    @Test("the first token of each kind wins")
    func firstTokenWins() {
        // "10:18:14" is the time, later "11:11:11" is then tried as day / year and ignored.
        #expect(CookieDateParser.parse("09 Jun 2021 10:18:14 11:11:11") == Self.june9)
    }
}
