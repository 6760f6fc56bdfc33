import Foundation
import Hummingbird
import HybridPackages

/// Answers `GET`/`HEAD /v1/files/<name>`: strong ETag (the SHA-256), `If-None-Match` → 304, single byte ranges
/// → 206, unsatisfiable ranges → 416. Ranges are what make client downloads resumable.
struct PackageFileResponder: Sendable {
    let fileIO = FileIO()

    func respond(
        to request: Request, entry: CatalogEntry, includeBody: Bool, context: some RequestContext
    ) async throws -> Response {
        let size = entry.inspection.size
        var headers = HTTPFields()
        headers[.eTag] = entry.entityTag
        headers[.acceptRanges] = "bytes"
        if EntityTagMatch.matches(ifNoneMatch: request.headers[.ifNoneMatch], current: entry.entityTag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/zip"
        switch ByteRangeRequest(header: request.headers[.range], size: size) {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        case .whole:
            headers[.contentLength] = "\(size)"
            guard includeBody, size > 0 else { return Response(status: .ok, headers: headers) }
            let body = try await fileIO.loadFile(path: entry.url.path, context: context)
            return Response(status: .ok, headers: headers, body: body)
        case .partial(let range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            headers[.contentLength] = "\(range.upperBound - range.lowerBound + 1)"
            guard includeBody else { return Response(status: .partialContent, headers: headers) }
            let body = try await fileIO.loadFile(
                path: entry.url.path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }
}
