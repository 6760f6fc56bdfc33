import Foundation

/// Runs work on a thread of its own with a large stack, and waits for it.
///
/// swift-syntax parses, converts locations and visits by recursion as deep as the source nests, and its debug
/// builds use kilobytes of stack a level: a long chain (`a.b.c…`, `try try …`, `A<A<…>>`) overflows the 512 KiB to
/// 8 MiB threads a caller runs on. The stack is reserved, not committed: pages the work does not touch cost nothing.
enum LargeStack {
    static let size = 1 << 30

    static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        let box = ResultBox<T>()
        let thread = Thread {
            box.set(work())
        }
        thread.stackSize = size
        thread.start()
        return box.wait()
    }
}

/// One value handed from the worker thread to the waiting caller.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // Guarded by `condition`.
    private var value: T?
    private let condition = NSCondition()

    func set(_ newValue: T) {
        condition.lock()
        value = newValue
        condition.signal()
        condition.unlock()
    }

    func wait() -> T {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let value { return value }
            condition.wait()
        }
    }
}
