import Foundation
import Hummingbird
import HybridPackages

/// Answers `GET`/`HEAD /v1/files/<name>`: strong ETag (the SHA-256), the RFC 9110 §13.2.2 preconditions
/// (`If-Match` → 412, `If-None-Match` → 304, `If-Range`), single byte ranges → 206, unsatisfiable ranges → 416.
/// Ranges are what make client downloads resumable; `If-Range` is what keeps a resume from splicing two files.
struct PackageFileResponder: Sendable {
    /// A file as answered: where it is, its size, its strong entity tag and how it is labelled.
    struct ServedFile: Sendable {
        var url: URL
        var size: Int64
        var entityTag: String
        var contentType: String
        var cacheControl: String?
    }

    let fileIO = FileIO()

    func respond(
        to request: Request, entry: CatalogEntry, includeBody: Bool, context: some RequestContext
    ) async throws -> Response {
        try await respond(
            to: request,
            file: ServedFile(
                url: entry.url, size: entry.inspection.size, entityTag: entry.entityTag,
                contentType: "application/zip"),
            includeBody: includeBody, context: context)
    }

    func respond(
        to request: Request, file: ServedFile, includeBody: Bool, context: some RequestContext
    ) async throws -> Response {
        let size = file.size
        var headers = HTTPFields()
        headers[.eTag] = file.entityTag
        headers[.acceptRanges] = "bytes"
        if let cacheControl = file.cacheControl { headers[.cacheControl] = cacheControl }
        let outcome = PreconditionOutcome(
            ifMatch: request.headers[.ifMatch], ifNoneMatch: request.headers[.ifNoneMatch],
            ifRange: request.headers[.ifRange], current: EntityTag(strong: file.entityTag))
        let honorRange: Bool
        switch outcome {
        case .preconditionFailed:
            headers[.contentLength] = "0"
            return Response(status: .preconditionFailed, headers: headers)
        case .notModified:
            // NIO's encoder drops the Content-Length Hummingbird gives an empty body: a 304 must not say 0.
            return Response(status: .notModified, headers: headers)
        case .proceed(let honor):
            honorRange = honor
        }
        headers[.contentType] = file.contentType
        let range = ByteRangeRequest(header: honorRange ? request.headers[.range] : nil, size: size)
        switch range {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            headers[.contentLength] = "0"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        case .whole:
            headers[.contentLength] = "\(size)"
            guard includeBody, size > 0 else { return Response(status: .ok, headers: headers) }
            let body = try await fileIO.loadFile(path: file.url.path, context: context)
            return Response(status: .ok, headers: headers, body: body)
        case .partial(let range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            headers[.contentLength] = "\(range.upperBound - range.lowerBound + 1)"
            guard includeBody else { return Response(status: .partialContent, headers: headers) }
            let body = try await fileIO.loadFile(
                path: file.url.path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }
}
