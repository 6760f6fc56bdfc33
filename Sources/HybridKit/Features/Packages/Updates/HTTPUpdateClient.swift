import Foundation
import HybridPackages

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `UpdateClient` over HTTP (URLSession), speaking to `hybrid serve` or anything serving the same JSON and
/// honouring `Range`: releases from `GET <base>/v1/packages/<id>/latest`, bytes with `Range: bytes=a-b`.
public struct HTTPUpdateClient: UpdateClient {
    /// The server root, e.g. `http://127.0.0.1:8080/`.
    public let baseURL: URL
    public let session: URLSession

    public init(baseURL: URL, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.session = session
    }

    public func latestRelease(for id: String) async throws -> PackageRelease? {
        // The id is restricted to [A-Za-z0-9._-], so it is a safe path component as is.
        let url = baseURL.appendingPathComponent("v1/packages").appendingPathComponent(id)
            .appendingPathComponent("latest")
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, status, _) = try await send(request)
        switch status {
        case 200:
            let document: ReleaseDocument
            do { document = try JSONDecoder().decode(ReleaseDocument.self, from: data) } catch {
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
            throw HTTPUpdateClientError.unexpectedStatus(url: url.absoluteString, status: status)
        }
    }

    public func fetch(_ artifact: PackageArtifact, range: Range<Int64>) async throws -> [UInt8] {
        guard let url = URL(string: artifact.location), url.scheme == "http" || url.scheme == "https"
        else { throw HTTPUpdateClientError.invalidLocation(artifact.location) }
        guard !range.isEmpty else { return [] }
        var request = URLRequest(url: url)
        let asked = "bytes=\(range.lowerBound)-\(range.upperBound - 1)"
        request.setValue(asked, forHTTPHeaderField: "Range")
        let (data, status, response) = try await send(request)
        switch status {
        case 206:
            let contentRange = response.value(forHTTPHeaderField: "Content-Range") ?? ""
            guard contentRange.hasPrefix("bytes \(range.lowerBound)-") else {
                throw HTTPUpdateClientError.wrongRange(
                    url: url.absoluteString, asked: asked, got: contentRange)
            }
            // A short read is allowed by the protocol; more than asked is not, so never pass extra bytes on.
            return [UInt8](data.prefix(range.count))
        case 200:
            // The server ignored Range and sent the whole file: take the asked-for slice of it.
            let lower = Int(range.lowerBound)
            guard lower < data.count else { return [] }
            return [UInt8](data[(data.startIndex + lower)..<(data.startIndex + min(data.count, Int(range.upperBound)))])
        case 416:
            // Nothing at or after the start: the source has nothing more to give (the downloader reports truncation).
            return []
        default:
            throw HTTPUpdateClientError.unexpectedStatus(url: url.absoluteString, status: status)
        }
    }

    private func send(_ request: URLRequest) async throws -> (Data, Int, HTTPURLResponse) {
        let urlText = request.url?.absoluteString ?? "?"
        let data: Data
        let response: URLResponse
        do { (data, response) = try await session.data(for: request) } catch {
            throw HTTPUpdateClientError.transport(url: urlText, reason: error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            throw HTTPUpdateClientError.invalidLocation(urlText)
        }
        return (data, http.statusCode, http)
    }
}
