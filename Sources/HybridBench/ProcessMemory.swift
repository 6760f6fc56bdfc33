#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation

/// Resident memory read from /proc (Linux).
public enum ProcessMemory {
    /// Proportional set size (PSS: each shared page divided among the processes that map it) of this process and
    /// every process it started (WebKit's web and network processes), in bytes. Summing RSS instead would count
    /// WebKit's shared libraries once per web process.
    public static func proportionalWithChildren() -> Int {
        let me = getpid()
        var parents: [Int32: Int32] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { parents[pid] = parent }
        }
        func descends(_ pid: Int32) -> Bool {
            var current = pid
            for _ in 0..<32 {
                if current == me { return true }
                guard let parent = parents[current], parent > 1 else { return false }
                current = parent
            }
            return false
        }
        return parents.keys.filter(descends).map(proportional(of:)).reduce(0, +)
    }

    /// Resident set of `pid` from /proc/<pid>/statm, in bytes; 0 when unreadable.
    public static func of(_ pid: Int32) -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// PSS of `pid` from /proc/<pid>/smaps_rollup, in bytes; 0 when unreadable.
    public static func proportional(of pid: Int32) -> Int {
        guard let rollup = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return 0 }
        for line in rollup.split(separator: "\n") where line.hasPrefix("Pss:") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return kilobytes * 1024
        }
        return 0
    }

    /// Resident set of this process alone, in bytes.
    public static var ownResident: Int { of(getpid()) }

    /// Bytes the C heap has handed out and not had back (glibc `mallinfo2`: small blocks in use plus mmapped
    /// blocks). Unlike the resident size it does not count freed memory the allocator keeps, so leaks show
    /// rather than fragmentation. Swift objects, GTK and WebKit's UI-process side all allocate here.
    public static var heapInUse: Int {
        let info = mallinfo2()
        return Int(info.uordblks) + Int(info.hblkhd)
    }

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
#endif
