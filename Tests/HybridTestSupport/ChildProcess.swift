import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs an executable to its end with a wall-clock limit, collecting its standard output.
///
/// Built on `posix_spawn` and `waitpid` rather than Foundation's `Process`: on Linux, `Process` learns of a child's
/// exit through a monitor thread that uses `select()`, which stops working once the test process has more than
/// 1,024 descriptors open (WebKit's tests running beside it easily do), and its termination handler then never
/// runs.
public struct ChildProcess {
    public struct Result: Sendable {
        /// The exit status, when the child exited.
        public var exitStatus: Int32?
        /// The signal that ended the child, when one did.
        public var signal: Int32?
        /// The child outlived the limit and was killed.
        public var timedOut: Bool
        public var standardOutput: Data
        public var standardError: Data
    }

    public enum Failure: Error, CustomStringConvertible {
        case spawnFailed(Int32)
        public var description: String {
            switch self {
            case .spawnFailed(let code): "posix_spawn failed: \(String(cString: strerror(code)))"
            }
        }
    }

    /// Runs `executable` with `arguments` and `environment`, killing it with SIGKILL when it is still running
    /// after `limit`.
    public static func run(
        _ executable: URL, arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        limit: Duration = .seconds(120)
    ) throws -> Result {
        let output = try makePipe()
        let errors = try makePipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.write, 2)

        let pid: pid_t
        do {
            pid = try spawn(executable, arguments: arguments, environment: environment, actions: &actions)
        } catch {
            close(output.write)
            close(errors.write)
            close(output.read)
            close(errors.read)
            throw error
        }
        close(output.write)
        close(errors.write)
        // Read while the child runs, so a child that writes more than a pipe holds never blocks.
        let collectedOutput = collect(output.read)
        let collectedErrors = collect(errors.read)

        let deadline = ContinuousClock.now + limit
        var status: Int32 = 0
        var timedOut = false
        while true {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { break }
            if waited < 0, errno != EINTR { break }
            if ContinuousClock.now >= deadline, !timedOut {
                timedOut = true
                kill(pid, SIGKILL)
            }
            usleep(2_000)
        }
        collectedOutput.waitUntilFinished()
        collectedErrors.waitUntilFinished()
        // WIFEXITED / WTERMSIG are macros Swift does not import: the low 7 bits hold the signal (0 for an exit).
        let signal = status & 0x7f
        return Result(
            exitStatus: signal == 0 ? (status >> 8) & 0xff : nil, signal: signal == 0 ? nil : signal,
            timedOut: timedOut, standardOutput: collectedOutput.data, standardError: collectedErrors.data)
    }

    /// The same, from async code: on a thread of its own, since waiting for a child must not hold one of the
    /// few threads of Swift's cooperative pool (every other test of the process needs them).
    public static func run(
        _ executable: URL, arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        limit: Duration = .seconds(120)
    ) async throws -> Result {
        try await offThePool { try run(executable, arguments: arguments, environment: environment, limit: limit) }
    }

    /// Starts `executable` with `arguments` and `environment` and the descriptors `actions` sets up; its pid.
    /// With `defaultSignals`, the child starts with no blocked signals and the default handlers of the ones a
    /// server stops on: a test's worker thread may block SIGTERM, and a child that keeps the mask it inherits (as
    /// nginx in single-process mode does) would then ignore being told to stop.
    public static func spawn(
        _ executable: URL, arguments: [String], environment: [String: String],
        actions: inout posix_spawn_file_actions_t, defaultSignals: Bool = false
    ) throws -> pid_t {
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if defaultSignals {
            var empty = sigset_t()
            sigemptyset(&empty)
            posix_spawnattr_setsigmask(&attributes, &empty)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in [SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        }
        var pid: pid_t = 0
        var spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        // A test that just wrote `executable` can meet ETXTBSY: a child another thread forked meanwhile inherited
        // the write descriptor for the moment it takes to exec. It clears in milliseconds; wait up to a second.
        for _ in 0..<50 where spawned == ETXTBSY {
            usleep(20_000)
            spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        }
        guard spawned == 0 else { throw Failure.spawnFailed(spawned) }
        return pid
    }

    /// A pipe whose ends are not inherited by children spawned meanwhile on other threads (`dup2` clears the
    /// flag on the child's own copy).
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw Failure.spawnFailed(errno) }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return (ends[0], ends[1])
    }

    /// Reads `descriptor` to its end on a thread of its own, then closes it.
    private static func collect(_ descriptor: Int32) -> ManagedOutput {
        let collected = ManagedOutput()
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    collected.append(buffer[0..<count])
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(descriptor)
            collected.finish()
        }
        thread.start()
        return collected
    }

    /// The child's output, written by the reading thread and read once it has finished.
    private final class ManagedOutput: @unchecked Sendable {
        // Guarded by `condition`.
        private var bytes = Data()
        private var done = false
        private let condition = NSCondition()

        func append(_ chunk: ArraySlice<UInt8>) {
            condition.lock()
            bytes.append(contentsOf: chunk)
            condition.unlock()
        }

        func finish() {
            condition.lock()
            done = true
            condition.broadcast()
            condition.unlock()
        }

        func waitUntilFinished() {
            condition.lock()
            while !done { condition.wait() }
            condition.unlock()
        }

        var data: Data {
            condition.lock()
            defer { condition.unlock() }
            return bytes
        }
    }
}
