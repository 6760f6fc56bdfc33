#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Synchronization

/// Samples the C heap in use (``ProcessMemory/heapInUse``) every millisecond on a thread of its own and keeps the
/// highest reading. The resident-size peak misses memory the allocator had kept from earlier work and hands out
/// again; bytes in use do not, so this is what a burst of work held at its height (to within the interval).
final class HeapPeakSampler: Sendable {
    private struct State {
        var start: Int
        var peak: Int
        var running = true
    }

    private let state: Mutex<State>
    private let stopped = DispatchSemaphore(value: 0)

    init() {
        let now = ProcessMemory.heapInUse
        state = Mutex(State(start: now, peak: now))
        let thread = Thread { [self] in
            while true {
                let reading = ProcessMemory.heapInUse
                let running = state.withLock { state in
                    state.peak = max(state.peak, reading)
                    return state.running
                }
                if !running { break }
                usleep(1000)
            }
            stopped.signal()
        }
        thread.name = "hybrid.heap-peak"
        thread.start()
    }

    /// Stops sampling and returns the peak above the reading at start, in bytes.
    func stop() -> Int {
        state.withLock { $0.running = false }
        stopped.wait()
        return state.withLock { max(0, $0.peak - $0.start) }
    }
}
#endif
