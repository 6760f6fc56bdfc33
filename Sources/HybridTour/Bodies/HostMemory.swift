import Foundation

/// Resident memory of this process from /proc (Linux), for memory figures next to timings.
public enum HostMemory {
    /// Current resident set size in bytes (VmRSS), nil where /proc is missing.
    public static func residentBytes() -> Int? { field("VmRSS:") }

    /// Peak resident set size in bytes since start or the last ``resetPeak()`` (VmHWM).
    public static func peakBytes() -> Int? { field("VmHWM:") }

    /// Resets the peak to the current resident size (writes 5 to /proc/self/clear_refs).
    @discardableResult
    public static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    private static func field(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let number = line.dropFirst(name.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first
            return number.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}
