import Foundation
import HybridPackages

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `UpdateClient` over HTTP (URLSession), speaking to `hybrid serve` or anything serving the same JSON and
/// honouring `Range`: releases from `GET <base>/v1/packages/<id>/latest`, bytes with `Range: bytes=a-b`.
///
/// The server is not trusted with pace or size (`UpdateTransferLimits`): each request has a total deadline, a
/// check another, and bodies are read only up to what the answer may hold — a release document's limit, or the
/// bytes asked for — so memory stays bounded whatever a mirror sends. See docs/release-channel.md, "Threat model".
public struct HTTPUpdateClient: UpdateClient {
    /// The server root, e.g. `http://127.0.0.1:8080/`.
    public let baseURL: URL
    /// The session whose configuration (cache, proxies, headers) requests use. Its delegate is not called: the
    /// client reads bodies through a delegate of its own, to stop them at their limit.
    public let session: URLSession
    public let limits: UpdateTransferLimits
    let transport: BoundedHTTPTransport

    public init(baseURL: URL, session: URLSession = .shared, limits: UpdateTransferLimits = UpdateTransferLimits()) {
        self.baseURL = baseURL
        self.session = session
        self.limits = limits
        transport = BoundedHTTPTransport(configuration: session.configuration)
    }

    public func latestRelease(for id: String) async throws -> PackageRelease? {
        // The id is restricted to [A-Za-z0-9._-], so it is a safe path component as is.
        let url = baseURL.appendingPathComponent("v1/packages").appendingPathComponent(id)
            .appendingPathComponent("latest")
        return try await withCheckDeadline(limits.checkTimeout, url: url.absoluteString) {
            try await latestRelease(for: id, at: url)
        }
    }

    private func latestRelease(for id: String, at url: URL) async throws -> PackageRelease? {
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let limit = limits.maximumDocumentBytes
        let answer = try await send(request) { $0.statusCode == 200 ? .collect(limit: limit) : .skip }
        switch answer.status {
        case 200:
            let document: ReleaseDocument
            do { document = try JSONDecoder().decode(ReleaseDocument.self, from: answer.body) } catch {
                throw HTTPUpdateClientError.malformedRelease(url: url.absoluteString, reason: "\(error)")
            }
            guard document.id == id else {
                throw HTTPUpdateClientError.malformedRelease(
                    url: url.absoluteString, reason: "asked for '\(id)', got '\(document.id)'")
            }
            return try document.release(relativeTo: url)
        case 404:
            return nil
        default:
            throw HTTPUpdateClientError.unexpectedStatus(url: url.absoluteString, status: answer.status)
        }
    }

    public func fetch(_ artifact: PackageArtifact, range: Range<Int64>) async throws -> [UInt8] {
        guard let url = URL(string: artifact.location), url.scheme == "http" || url.scheme == "https"
        else { throw HTTPUpdateClientError.invalidLocation(artifact.location) }
        guard !range.isEmpty else { return [] }
        var request = URLRequest(url: url)
        let asked = "bytes=\(range.lowerBound)-\(range.upperBound - 1)"
        request.setValue(asked, forHTTPHeaderField: "Range")
        let answer = try await send(request) { response in
            Self.plan(forRangeAnswer: response, asked: asked, range: range, url: url.absoluteString)
        }
        switch answer.status {
        case 206, 200:
            // The plan kept at most the asked-for bytes: the slice of a whole file (200), or a 206 cut off with an
            // error if it ran past them. A short read is allowed by the protocol.
            return [UInt8](answer.body)
        case 416:
            // Nothing at or after the start: the source has nothing more to give (the downloader reports truncation).
            return []
        default:
            throw HTTPUpdateClientError.unexpectedStatus(url: url.absoluteString, status: answer.status)
        }
    }

    /// How much of an answer to `Range: asked` to read: a 206 for exactly the asked-for start, and never more
    /// bytes than asked or than its `Content-Range` declares; for a 200 (the server ignored `Range` and sends the
    /// whole file), the asked-for slice, and the rest is not read.
    static func plan(forRangeAnswer response: HTTPURLResponse, asked: String, range: Range<Int64>, url: String)
        -> BodyPlan
    {
        switch response.statusCode {
        case 206:
            let contentRange = response.value(forHTTPHeaderField: "Content-Range") ?? ""
            guard let declared = ContentRange(contentRange), declared.first == range.lowerBound else {
                return .refuse(.wrongRange(url: url, asked: asked, got: contentRange))
            }
            // Declaring more than asked is answering another request; fewer is a short read.
            guard declared.last < range.upperBound else {
                return .refuse(.wrongRange(url: url, asked: asked, got: contentRange))
            }
            return .collect(limit: Int(declared.last - declared.first + 1))
        case 200:
            guard let lower = Int(exactly: range.lowerBound), let upper = Int(exactly: range.upperBound) else {
                return .refuse(.wrongRange(url: url, asked: asked, got: "the whole file"))
            }
            return .slice(lower..<upper)
        default:
            return .skip
        }
    }

    func send(_ request: URLRequest, plan: @escaping @Sendable (HTTPURLResponse) -> BodyPlan)
        async throws(HTTPUpdateClientError) -> BoundedAnswer
    {
        try await transport.send(request, timeout: limits.requestTimeout, plan: plan)
    }
}

/// `Content-Range: bytes <first>-<last>/<size or *>` (RFC 9110 §14.4).
struct ContentRange: Equatable {
    let first: Int64
    let last: Int64

    init?(_ text: String) {
        guard text.hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst("bytes ".count).split(separator: "/", maxSplits: 1).first ?? ""
        let bounds = spec.split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last
        else { return nil }
        self.first = first
        self.last = last
    }
}
