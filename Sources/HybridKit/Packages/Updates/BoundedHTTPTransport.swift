import Foundation
import HybridPackages
import Logging
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What to do with an answer's body, decided from its status and headers before any of it is read.
enum BodyPlan: Sendable {
    /// Keep the body; more than `limit` bytes, declared or received, fails with `bodyTooLarge`.
    case collect(limit: Int)
    /// Keep bytes `range` of the body and stop reading once they are in (a 200 answering a range request).
    case slice(Range<Int>)
    /// Read nothing: the status says all the caller needs.
    case skip
    /// Read nothing and fail.
    case refuse(HTTPUpdateClientError)
}

/// A finished answer: the response and the body bytes the plan kept.
struct BoundedAnswer: Sendable {
    let response: HTTPURLResponse
    let body: Data
    var status: Int { response.statusCode }
}

/// URLSession for the update clients, where the server is not trusted: bodies are streamed through a delegate
/// and never kept past their plan's limit, and every request has a total deadline. The caller gets its answer as
/// soon as the outcome is known (limit reached, deadline passed, task cancelled), not when URLSession gets round
/// to ending the transfer: on Linux a cancelled task can go on receiving for a while, and those bytes are dropped.
final class BoundedHTTPTransport: Sendable {
    let session: URLSession
    private let transfers: UpdateTransferRegistry

    /// - Parameter configuration: the caller's session configuration (cache, proxies, headers); the delegate is
    ///   this transport's, since only a delegate sees bytes as they arrive.
    init(configuration: URLSessionConfiguration) {
        let transfers = UpdateTransferRegistry()
        self.transfers = transfers
        session = URLSession(configuration: configuration, delegate: transfers, delegateQueue: nil)
    }

    // A URLSession keeps its delegate until invalidated.
    deinit { session.finishTasksAndInvalidate() }

    /// Sends `request` and reads its answer as `plan` decides, within `timeout` from start to the last byte.
    func send(
        _ request: URLRequest, timeout: Duration, plan: @escaping @Sendable (HTTPURLResponse) -> BodyPlan
    ) async throws(HTTPUpdateClientError) -> BoundedAnswer {
        let url = request.url?.absoluteString ?? "?"
        let transfer = UpdateTransfer(url: url, plan: plan)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.start(request, in: session, registry: transfers, timeout: timeout, report: continuation)
            }
        } onCancel: {
            transfer.finish(.failure(.transport(url: url, reason: "the update was cancelled")))
        }
        return try result.get()
    }
}

/// Runs `work` and fails with `timedOut` when it has not finished within `limit`; `work` is cancelled then, which
/// ends its transfers at once.
func withCheckDeadline<T: Sendable>(
    _ limit: Duration, url: String, _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            let error = HTTPUpdateClientError.timedOut(url: url, after: limit)
            Logger(label: "hybrid.packages").warning(
                "update check stopped at its deadline", metadata: ["url": "\(url)", "error": "\(error)"])
            throw error
        }
        return value
    }
}

/// One request in flight: reports exactly once, keeps at most what its plan allows.
private final class UpdateTransfer: Sendable {
    typealias Report = CheckedContinuation<Result<BoundedAnswer, HTTPUpdateClientError>, Never>

    private struct State {
        var report: Report?
        var outcome: Result<BoundedAnswer, HTTPUpdateClientError>?
        // URLSessionTask is thread-safe; it is just not annotated Sendable on every platform.
        var task: URLSessionDataTask?
        var response: HTTPURLResponse?
        var plan = BodyPlan.skip
        var body = Data()
        /// Body bytes seen so far, kept or not.
        var offset = 0
    }

    let url: String
    private let plan: @Sendable (HTTPURLResponse) -> BodyPlan
    private let state = Mutex(State())

    init(url: String, plan: @escaping @Sendable (HTTPURLResponse) -> BodyPlan) {
        self.url = url
        self.plan = plan
    }

    func start(
        _ request: URLRequest, in session: URLSession, registry: UpdateTransferRegistry, timeout: Duration,
        report: Report
    ) {
        let task = session.dataTask(with: request)
        let settled = state.withLock { state -> Result<BoundedAnswer, HTTPUpdateClientError>? in
            if let outcome = state.outcome { return outcome }
            state.report = report
            state.task = task
            return nil
        }
        // Cancelled before it started.
        if let settled { return report.resume(returning: settled) }
        registry.register(self, for: task)
        task.resume()
        let components = timeout.components
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        let url = url
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in
            self?.finish(.failure(.timedOut(url: url, after: timeout)))
        }
    }

    /// Settles the transfer (the first outcome wins) and stops the task if it still runs.
    func finish(_ outcome: Result<BoundedAnswer, HTTPUpdateClientError>) {
        let (report, task) = state.withLock { state -> (Report?, URLSessionDataTask?) in
            guard state.outcome == nil else { return (nil, nil) }
            state.outcome = outcome
            // Nothing more is read into memory once settled.
            state.body = Data()
            let taken = (state.report, state.task)
            state.report = nil
            state.task = nil
            return taken
        }
        guard let report else { return }
        if case .failure(let error) = outcome {
            switch error {
            case .bodyTooLarge, .timedOut, .wrongRange:
                Logger(label: "hybrid.packages").warning(
                    "update transfer refused", metadata: ["url": "\(url)", "error": "\(error)"])
            default: break
            }
        }
        task?.cancel()
        report.resume(returning: outcome)
    }

    /// Decides from the response whether to read its body; when not, the transfer settles and its task is cancelled.
    func receive(_ response: URLResponse) {
        guard let http = response as? HTTPURLResponse else {
            finish(.failure(.invalidLocation(url)))
            return
        }
        let plan = plan(http)
        switch plan {
        case .refuse(let error):
            finish(.failure(error))
            return
        case .skip:
            finish(.success(BoundedAnswer(response: http, body: Data())))
            return
        case .collect(let limit):
            // A declared length over the limit is refused before a byte of the body is read.
            if http.expectedContentLength > Int64(limit) {
                finish(.failure(.bodyTooLarge(url: url, limit: limit)))
                return
            }
        case .slice(let range):
            if range.isEmpty {
                finish(.success(BoundedAnswer(response: http, body: Data())))
                return
            }
        }
        state.withLock { state in
            guard state.outcome == nil else { return }
            state.response = http
            state.plan = plan
        }
    }

    /// Takes the next bytes of the body; beyond the plan they are dropped and the transfer settles.
    func append(_ data: Data) {
        let outcome = state.withLock { state -> Result<BoundedAnswer, HTTPUpdateClientError>? in
            guard state.outcome == nil, let response = state.response else { return nil }
            let start = state.offset
            state.offset += data.count
            switch state.plan {
            case .collect(let limit):
                guard state.body.count + data.count <= limit else {
                    return .failure(.bodyTooLarge(url: url, limit: limit))
                }
                state.body.append(data)
                return nil
            case .slice(let range):
                let lower = max(start, range.lowerBound)
                let upper = min(state.offset, range.upperBound)
                if lower < upper {
                    state.body.append(data[(data.startIndex + lower - start)..<(data.startIndex + upper - start)])
                }
                return state.offset >= range.upperBound
                    ? .success(BoundedAnswer(response: response, body: state.body)) : nil
            case .skip, .refuse:
                return nil
            }
        }
        if let outcome { finish(outcome) }
    }

    /// URLSession is done with the task: what arrived is the answer, unless it settled before.
    func complete(_ error: (any Error)?) {
        let answer = state.withLock { state -> BoundedAnswer? in
            state.response.map { BoundedAnswer(response: $0, body: state.body) }
        }
        if let error {
            finish(.failure(.transport(url: url, reason: error.localizedDescription)))
        } else if let answer {
            finish(.success(answer))
        } else {
            finish(.failure(.transport(url: url, reason: "the connection ended without an answer")))
        }
    }
}

/// The session's delegate: hands each task's events to its transfer.
private final class UpdateTransferRegistry: NSObject, URLSessionDataDelegate, Sendable {
    private let transfers = Mutex<[Int: UpdateTransfer]>([:])

    func register(_ transfer: UpdateTransfer, for task: URLSessionTask) {
        transfers.withLock { $0[task.taskIdentifier] = transfer }
    }

    private func transfer(for task: URLSessionTask) -> UpdateTransfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        // Always `.allow`: a transfer that is not read was cancelled already (`finish` cancels the task), and on
        // Linux a `.cancel` disposition does not stop the transfer: the whole body is read into memory first.
        if let transfer = transfer(for: dataTask) { transfer.receive(response) } else { dataTask.cancel() }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(for: dataTask)?.append(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        transfer?.complete(error)
    }
}
