import Logging
import Synchronization

/// A swift-log backend for tests that records which labels logged (at any level) and passes every record on
/// to standard error at `info` and above, as the default backend would. swift-log is bootstrapped once per
/// process: every suite shares the one installed.
public final class LogCapture: Sendable {
    private let seen = Mutex<Set<String>>([])
    private let messages = Mutex<Set<String>>([])
    private let counts = Mutex<[String: Int]>([:])
    private static let shared = Mutex<LogCapture?>(nil)

    public static func installed() -> LogCapture {
        shared.withLock { installed in
            if let installed { return installed }
            let capture = LogCapture()
            LoggingSystem.bootstrap { label in
                var stream = StreamLogHandler.standardError(label: label)
                stream.logLevel = .info
                var recorder = Recorder(label: label, capture: capture)
                recorder.logLevel = .trace
                return MultiplexLogHandler([recorder, stream])
            }
            installed = capture
            return capture
        }
    }

    public func reset() {
        seen.withLock { $0.removeAll() }
        messages.withLock { $0.removeAll() }
        counts.withLock { $0.removeAll() }
    }
    /// How many times `label` logged `message` since the last reset.
    public func count(_ label: String, _ message: String) -> Int { counts.withLock { $0["\(label): \(message)"] ?? 0 } }
    /// What `label` logged since the last reset.
    public func messages(_ label: String) -> [String] {
        messages.withLock { all in
            all.filter { $0.hasPrefix("\(label): ") }.map { String($0.dropFirst(label.count + 2)) }
        }
    }
    public func labels() -> Set<String> { seen.withLock { $0 } }
    /// Whether `label` logged `message` since the last reset.
    public func logged(_ label: String, _ message: String) -> Bool {
        messages.withLock { $0.contains("\(label): \(message)") }
    }

    private struct Recorder: LogHandler {
        let label: String
        let capture: LogCapture
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        // swift-log's classic requirement: `message` and the rest are not needed, only that the label spoke.
        func log(
            level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
            function: String, line: UInt
        ) {
            capture.seen.withLock { _ = $0.insert(label) }
            capture.messages.withLock { _ = $0.insert("\(label): \(message)") }
            capture.counts.withLock { $0["\(label): \(message)", default: 0] += 1 }
        }
    }
}
