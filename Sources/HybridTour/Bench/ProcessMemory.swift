import Foundation

/// Resident memory read from /proc (Linux).
public enum ProcessMemory {
    /// Resident set of this process and every process it started (WebKit's web and network processes), in bytes.
    public static func withChildren() -> Int {
        let me = getpid()
        var parents: [Int32: Int32] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
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
        return parents.keys.filter(descends).map(of(_:)).reduce(0, +)
    }

    public static func of(_ pid: Int32) -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// This process alone.
    public static var ownResident: Int { of(getpid()) }
}
