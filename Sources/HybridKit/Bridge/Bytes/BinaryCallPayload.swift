/// The payload of a binary call as the runtime writes it: the sizes of the parts it will upload, then the
/// arguments' JSON, where each part stands as `{"$hybridBytes":<index>}`:
///
///     [<size>,<size>,…] <JSON arguments>
///
/// Read without trusting it: plain decimal sizes (no sign, no leading zeros, at most 12 digits), one to
/// `maxParts` of them, each and their sum within `maxTotal`, one space, then the arguments.
enum BinaryCallPayload {
    struct Parsed: Equatable {
        let sizes: [Int]
        /// Where the arguments' JSON starts, as an offset into the payload's bytes.
        let argumentsOffset: Int
    }

    static func parse<Bytes: Collection>(_ bytes: Bytes, maxParts: Int, maxTotal: Int) -> Result<Parsed, BridgeError>
    where Bytes.Element == UInt8 {
        var index = bytes.startIndex
        var offset = 0
        func next() -> UInt8? {
            guard index != bytes.endIndex else { return nil }
            defer {
                index = bytes.index(after: index)
                offset += 1
            }
            return bytes[index]
        }
        guard next() == UInt8(ascii: "[") else {
            return .failure(.badMessage("a binary call starts with its part sizes"))
        }
        var sizes: [Int] = []
        var total = 0
        while true {
            var value = 0
            var digits = 0
            var byte = next()
            while let digit = byte, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) {
                if digits == 1 && value == 0 { return .failure(.badMessage("a part size has a leading zero")) }
                digits += 1
                guard digits <= 12 else { return .failure(.badMessage("a part size is too long")) }
                value = value * 10 + Int(digit - UInt8(ascii: "0"))
                byte = next()
            }
            guard digits > 0 else { return .failure(.badMessage("a part size is not a number")) }
            sizes.append(value)
            total += value
            guard sizes.count <= maxParts else {
                return .failure(.badMessage("a call may send at most \(maxParts) binary parts"))
            }
            guard total <= maxTotal else {
                return .failure(
                    .badArguments("the call's \(total) bytes exceed BridgeLimits.maxBinaryBytes (\(maxTotal))"))
            }
            switch byte {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"):
                guard next() == UInt8(ascii: " ") else {
                    return .failure(.badMessage("a binary call's sizes are followed by one space"))
                }
                return .success(Parsed(sizes: sizes, argumentsOffset: offset))
            default: return .failure(.badMessage("a binary call's sizes are malformed"))
            }
        }
    }
}
