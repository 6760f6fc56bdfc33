import Foundation
import HybridTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real nginx, started by the test as the current user with a generated configuration: one process
/// (`master_process off`), listening on 127.0.0.1 at a free port, serving `root` as static files, with every log and
/// temp path inside its own temp directory. The access log records status, request, `Range` and `If-None-Match`.
final class NginxServer {
    enum Failure: Error, CustomStringConvertible {
        case missing
        case spawnFailed(Int32)
        case didNotStart(log: String)
        var description: String {
            switch self {
            case .missing: "nginx is not installed: install nginx (scripts/install-deps.sh)"
            case .spawnFailed(let code): "cannot start nginx: \(String(cString: strerror(code)))"
            case .didNotStart(let log): "nginx did not start listening: \(log)"
            }
        }
    }

    let directory: URL
    let port: UInt16
    private let pid: pid_t

    // swift-format-ignore: NeverForceUnwrap
    // A loopback URL with a port always parses.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }
    var accessLog: URL { directory.appendingPathComponent("access.log") }

    static func executable() -> URL? {
        ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].map(URL.init(fileURLWithPath:))
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Starts nginx serving `root`; fails (never skips) when nginx is missing.
    init(serving root: URL) throws {
        guard let nginx = Self.executable() else {
            Issue.record("install nginx (scripts/install-deps.sh): the release-channel tests serve the tree with it")
            throw Failure.missing
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try Self.freePort()
        let d = directory.path
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(d)/nginx.pid;
            error_log \(d)/error.log warn;
            events { worker_connections 256; }
            http {
              log_format hybrid '$status "$request" range="$http_range" inm="$http_if_none_match" bytes=$body_bytes_sent';
              access_log \(d)/access.log hybrid;
              client_body_temp_path \(d)/body;
              proxy_temp_path \(d)/proxy;
              fastcgi_temp_path \(d)/fastcgi;
              uwsgi_temp_path \(d)/uwsgi;
              scgi_temp_path \(d)/scgi;
              types { application/json json; application/zip zip; }
              default_type application/octet-stream;
              server {
                listen 127.0.0.1:\(port);
                root \(root.path);
              }
            }
            """
        let configURL = directory.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: configURL)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let output = "\(d)/stderr.log"
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        // nginx in single-process mode keeps the signal mask it inherits: it needs the default one to obey `stop()`.
        do {
            pid = try ChildProcess.spawn(
                nginx, arguments: ["-c", configURL.path, "-p", d + "/", "-e", "\(d)/error.log"],
                environment: ProcessInfo.processInfo.environment, actions: &actions, defaultSignals: true)
        } catch ChildProcess.Failure.spawnFailed(let code) {
            throw Failure.spawnFailed(code)
        }
        for _ in 0..<200 {
            if Self.accepts(port: port) { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { break }
            usleep(25_000)
        }
        let log = (try? String(contentsOf: URL(fileURLWithPath: output), encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        stop()
        throw Failure.didNotStart(log: log + errors)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private var stopped = false

    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        // Fast shutdown takes milliseconds; never hang a test run on it.
        for _ in 0..<200 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(25_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
    }

    /// Access-log lines so far (nginx writes each when the answer is done).
    func logLines() -> [String] {
        let text = (try? String(contentsOf: accessLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw Failure.spawnFailed(errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    static func accepts(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in.loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

extension sockaddr_in {
    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
