import HybridPackages

/// What to answer for a package file, decided from the manifest and the request headers alone (no disk access).
struct PackageResponsePlan {
    let response: SchemeResponse
    /// The bytes to send, or nil for none (304, 416, empty file).
    let body: ClosedRange<Int64>?

    init(entry: ManifestFileEntry, request: EngineRequest) {
        let etag = "\"\(entry.sha256)\""
        // no-cache: the engine may keep the file but must revalidate, which costs one hash comparison here
        // and makes a newly activated version visible on the next load.
        var headers = ["ETag": etag, "Cache-Control": "no-cache", "Accept-Ranges": "bytes"]
        if EntityTagMatch.matches(ifNoneMatch: request.header("If-None-Match"), current: etag) {
            response = SchemeResponse(statusCode: 304, headers: headers, expectedLength: 0)
            body = nil
            return
        }
        headers["Content-Type"] = entry.mimeType
        let size = entry.size
        switch ByteRangeRequest(header: request.header("Range"), size: size) {
        case .whole:
            headers["Content-Length"] = "\(size)"
            response = SchemeResponse(statusCode: 200, headers: headers, expectedLength: Int(size))
            body = size > 0 ? 0...(size - 1) : nil
        case .partial(let range):
            let count = range.upperBound - range.lowerBound + 1
            headers["Content-Length"] = "\(count)"
            headers["Content-Range"] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            response = SchemeResponse(statusCode: 206, headers: headers, expectedLength: Int(count))
            body = range
        case .unsatisfiable:
            headers["Content-Range"] = "bytes */\(size)"
            headers["Content-Length"] = "0"
            response = SchemeResponse(statusCode: 416, headers: headers, expectedLength: 0)
            body = nil
        }
    }
}
