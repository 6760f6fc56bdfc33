import FuzzSupport
import HybridPackages

/// Fuzzes `ByteRangeRequest`, which answers `Range` headers from any HTTP client of `hybrid serve` and from any
/// page's requests to the package scheme. The first byte picks the file size; the rest is the header.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRange(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    var input = FuzzInput(data, count)
    let sizes: [Int64] = [0, 1, 2, 10, 1000, 1 << 32, Int64.max]
    let pick = Int(input.byte())
    let size = pick < sizes.count ? sizes[pick] : Int64(input.uint32())
    let header = input.restString()
    let answer = ByteRangeRequest(header: header, size: size)
    guard answer != .whole else { return 0 }

    // Anything but the whole file needs exactly `bytes=<digits>-<digits>` (one side may be empty), with spaces
    // or tabs only around the parts: no sign, no space inside a number, no other character.
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    let trimmed = Substring(header).drop(while: isSpace).reversed().drop(while: isSpace).reversed()
    let text = String(trimmed)
    require(text.lowercased().hasPrefix("bytes="), "\(answer) for a header without bytes=: \(header.debugDescription)")
    let parts = text.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false).map {
        String($0.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
    require(parts.count == 2, "\(answer) for \(header.debugDescription): not one dash")
    let isDigits: (String) -> Bool = { !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }
    require(
        (parts[0].isEmpty || isDigits(parts[0])) && (parts[1].isEmpty || isDigits(parts[1]))
            && !(parts[0].isEmpty && parts[1].isEmpty),
        "\(answer) for \(header.debugDescription): a bound is not digits")

    // The numbers, saturated (a bound past Int64 is past any file).
    func value(_ digits: String) -> Int64 {
        var result: Int64 = 0
        for byte in digits.utf8 {
            let (times, o1) = result.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(byte - 48))
            if o1 || o2 { return .max }
            result = sum
        }
        return result
    }
    switch answer {
    case .partial(let range):
        require(range.lowerBound >= 0 && range.upperBound < size, "\(range) outside a file of \(size) bytes")
        if parts[0].isEmpty {
            let suffix = value(parts[1])
            require(range.upperBound == size - 1, "suffix range \(range) does not end the file of \(size)")
            require(range.lowerBound == max(0, size - suffix), "suffix \(suffix) answered \(range) of \(size)")
        } else {
            require(range.lowerBound == value(parts[0]), "\(header.debugDescription) answered \(range)")
            if !parts[1].isEmpty {
                require(range.upperBound == min(value(parts[1]), size - 1), "\(header.debugDescription) → \(range)")
            }
        }
    case .unsatisfiable:
        // Only a start at or past the end (or an empty file, or a zero suffix) is unsatisfiable.
        if !parts[0].isEmpty {
            require(value(parts[0]) >= size, "\(header.debugDescription) unsatisfiable for \(size) bytes")
        } else {
            require(size == 0 || value(parts[1]) == 0, "\(header.debugDescription) unsatisfiable for \(size)")
        }
    case .whole:
        break
    }
    return 0
}
