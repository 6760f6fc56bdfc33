import Foundation

/// Parses cookie dates exactly as RFC 6265 §5.1.1 prescribes (the algorithm browsers use),
/// rather than guessing with `DateFormatter`: it accepts RFC 1123, RFC 850, asctime and the many
/// malformed variants servers send, and rejects what the algorithm rejects.
public enum CookieDateParser {
    /// Returns the UTC date, or `nil` when the string is not a cookie-date.
    public static func parse(_ string: String) -> Date? {
        var hour = 0
        var minute = 0
        var second = 0
        var dayOfMonth = 0
        var month = 0
        var year = 0
        var foundTime = false
        var foundDay = false
        var foundMonth = false
        var foundYear = false

        for token in tokens(of: Array(string.utf8)) {
            if !foundTime, let time = parseTime(token) {
                foundTime = true
                (hour, minute, second) = time
                continue
            }
            if !foundDay, let day = leadingDigits(token, min: 1, max: 2) {
                foundDay = true
                dayOfMonth = day
                continue
            }
            if !foundMonth, let value = parseMonth(token) {
                foundMonth = true
                month = value
                continue
            }
            if !foundYear, let value = leadingDigits(token, min: 2, max: 4) {
                foundYear = true
                year = value
                continue
            }
        }

        // Step 3 and 4: two-digit years.
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }

        // Step 5: validation.
        guard foundTime, foundDay, foundMonth, foundYear else { return nil }
        guard (1...31).contains(dayOfMonth), year >= 1601, hour <= 23, minute <= 59, second <= 59 else {
            return nil
        }
        // Step 6: "if the date does not exist (e.g. February 30), abort".
        guard dayOfMonth <= daysInMonth(month, year: year) else { return nil }

        let days = daysFromCivil(year: year, month: month, day: dayOfMonth)
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: seconds)
    }

    // delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func tokens(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var start: Int? = nil
        for index in bytes.indices {
            if isDelimiter(bytes[index]) {
                if let begin = start { result.append(bytes[begin..<index]) }
                start = nil
            } else if start == nil {
                start = index
            }
        }
        if let begin = start { result.append(bytes[begin..<bytes.endIndex]) }
        return result
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// `min*maxDIGIT [ non-digit *OCTET ]` — returns the leading number when the token matches.
    private static func leadingDigits(_ token: ArraySlice<UInt8>, min: Int, max: Int) -> Int? {
        var value = 0
        var count = 0
        var index = token.startIndex
        while index < token.endIndex, isDigit(token[index]) {
            count += 1
            if count > max { return nil }
            value = value * 10 + Int(token[index] - 0x30)
            index += 1
        }
        return count >= min ? value : nil
    }

    /// time = hms-time [ non-digit *OCTET ]; hms-time = time-field ":" time-field ":" time-field
    private static func parseTime(_ token: ArraySlice<UInt8>) -> (Int, Int, Int)? {
        var fields: [Int] = []
        var index = token.startIndex
        while fields.count < 3 {
            var value = 0
            var count = 0
            while index < token.endIndex, isDigit(token[index]) {
                count += 1
                if count > 2 { return nil }
                value = value * 10 + Int(token[index] - 0x30)
                index += 1
            }
            guard count >= 1 else { return nil }
            fields.append(value)
            if fields.count < 3 {
                guard index < token.endIndex, token[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
        }
        // Whatever follows the third field must start with a non-digit (guaranteed: the digit loop stopped).
        return (fields[0], fields[1], fields[2])
    }

    private static let monthNames: [[UInt8]] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ].map { Array($0.utf8) }

    /// month = ( "jan" / ... / "dec" ) *OCTET, case-insensitive.
    private static func parseMonth(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let start = token.startIndex
        let prefix = [token[start] | 0x20, token[start + 1] | 0x20, token[start + 2] | 0x20]
        guard let index = monthNames.firstIndex(of: prefix) else { return nil }
        return index + 1
    }

    private static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
