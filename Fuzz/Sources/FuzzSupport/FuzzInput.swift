#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

import Logging

/// Silences swift-log: the library logs every refused input (as it should), which at thousands of inputs a second
/// would only slow the fuzzer and fill its log. Call at the start of every harness; the bootstrap runs once.
public func quietLogs() { _ = bootstrapOnce }

private let bootstrapOnce: Void = LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }

/// Takes a fuzzer's bytes apart into the values a harness needs: leading bytes choose sizes and modes, the rest
/// is the text under test. Every take succeeds (missing bytes read as zero), so any input is a valid test case.
public struct FuzzInput {
    public private(set) var bytes: [UInt8]
    private var position = 0

    public init(_ data: UnsafePointer<UInt8>, _ count: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: count))
    }

    public var isEmpty: Bool { position >= bytes.count }

    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func uint32() -> UInt32 {
        (0..<4).reduce(UInt32(0)) { value, _ in value << 8 | UInt32(byte()) }
    }

    /// Up to `maxCount` bytes, the length taken from one byte (so the fuzzer can grow and shrink a field).
    public mutating func field(maxCount: Int = 255) -> [UInt8] {
        let count = min(Int(byte()), maxCount, bytes.count - min(position, bytes.count))
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }

    public mutating func restString() -> String { String(decoding: rest(), as: UTF8.self) }
}

/// Fails the run when a parser broke one of its promises: libFuzzer records the input as a crash.
public func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    guard condition() else { fail("invariant broken: \(message())") }
}

/// Ends the run with `message` on standard error (written directly: `stderr` is shared mutable state to Swift 6).
public func fail(_ message: String) -> Never {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}
