#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Crypto
import Foundation
import Hummingbird
import Synchronization

/// Routes on a loopback server that tell a page what arrived: method, Content-Type, length and SHA-256 of the
/// body (multipart bodies also part by part, so two serialisations with different boundaries compare), plus
/// redirects and slow answers for the conformance suite and `hybrid bench bodies`.
public enum BodyEcho {
    /// What `/echo` answers, as JSON.
    public struct Report: Codable, Sendable, Equatable {
        public var method: String
        public var contentType: String?
        public var length: Int
        public var sha256: String
        public var parts: [Part]?
        /// `X-Test` as sent by the page (header pass-through check).
        public var testHeader: String?
        public var query: String?
        /// `Authorization` as sent (XHR's user and password).
        public var authorization: String?
    }

    public struct Part: Codable, Sendable, Equatable {
        public var disposition: String
        public var contentType: String?
        public var length: Int
        public var sha256: String
    }

    /// Bodies `/beacon?token=T` received, by token (beacons sent as a page leaves).
    public static let beaconBodies = Mutex<[String: [Data]]>([:])

    /// Requests `/big-head` took, by token.
    public static let bigHeadHits = Mutex<[String: Int]>([:])

    static let testHeaderName = HTTPFields.Element.Name("X-Test")
    static let echoHeaderName = HTTPFields.Element.Name("X-Echo")
    /// The standard methods, and two the engine sends as the page spelt them (only the standard ones are
    /// upper-cased), which the conformance edges probe.
    static let methods: [HTTPRequest.Method] =
        [.get, .post, .put, .patch, .delete] + ["patch", "PROPFIND"].compactMap { HTTPRequest.Method($0) }

    public static func addRoutes(to router: Router<BasicRequestContext>) {
        for method in methods {
            router.on("/echo", method: method) { request, _ in try await echo(request) }
            router.on("/slow", method: method) { request, _ in
                try await Task.sleep(for: .seconds(3))
                return try await echo(request)
            }
            router.on("/redirect/:code", method: method) { _, context in
                let code = context.parameters.get("code", as: Int.self) ?? 302
                return Response(
                    status: HTTPResponse.Status(code: code), headers: [.location: "/echo?redirected=\(code)"])
            }
        }
        // /big-head/KB?token=T: a 200 whose head carries KB kilobytes of headers (4 KB each, two of them with
        // characters percent-encoding triples), counting how many requests each token brought.
        router.post("/big-head/:kilobytes") { request, context in
            var request = request
            _ = try await request.collectBody(upTo: 64 << 20)
            let token = request.uri.queryParameters.get("token") ?? ""
            bigHeadHits.withLock { $0[token, default: 0] += 1 }
            let kilobytes = context.parameters.get("kilobytes", as: Int.self) ?? 1
            var headers = HTTPFields()
            headers[.contentType] = "text/plain"
            for index in 0..<max(1, kilobytes / 4) {
                if let name = HTTPFields.Element.Name("X-Big-\(index)") {
                    headers.append(
                        HTTPFields.Element(
                            name: name,
                            value: String(repeating: index < 2 ? "\"<>" : "b", count: index < 2 ? 1365 : 4096)))
                }
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "big head")))
        }
        router.post("/beacon") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            let token = request.uri.queryParameters.get("token") ?? ""
            beaconBodies.withLock { $0[token, default: []].append(Data(buffer: body)) }
            return Response(status: .noContent)
        }
        router.get("/status/:code") { _, context in
            let code = context.parameters.get("code", as: Int.self) ?? 200
            var headers = HTTPFields()
            headers[.contentType] = "text/plain"
            return Response(
                status: HTTPResponse.Status(code: code), headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: "status \(code)")))
        }
    }

    static func echo(_ request: Request) async throws -> Response {
        let contentType = request.headers[.contentType]
        let multipart = contentType?.lowercased().hasPrefix("multipart/form-data") == true
        var hasher = SHA256()
        var length = 0
        // Only multipart bodies are kept whole (to split them); others are hashed as they stream in.
        var kept = Data()
        for try await buffer in request.body {
            buffer.withUnsafeReadableBytes { raw in
                hasher.update(bufferPointer: raw)
                if multipart { kept.append(contentsOf: raw) }
            }
            length += buffer.readableBytes
        }
        let report = Report(
            method: request.method.rawValue, contentType: contentType, length: length,
            sha256: hex(hasher.finalize()),
            parts: multipart ? contentType.flatMap { MultipartParts.split(kept, contentType: $0) } : nil,
            testHeader: testHeaderName.flatMap { request.headers[$0] }, query: request.uri.query,
            authorization: request.headers[.authorization])
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        if let echoHeaderName { headers[echoHeaderName] = "yes" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(report)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}

/// Splits a multipart/form-data body into its parts (headers and a hash of each content).
enum MultipartParts {
    static func split(_ body: Data, contentType: String) -> [BodyEcho.Part]? {
        guard let range = contentType.range(of: "boundary=") else { return nil }
        var boundary = String(contentType[range.upperBound...])
        if let semicolon = boundary.firstIndex(of: ";") { boundary = String(boundary[..<semicolon]) }
        boundary = boundary.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        let delimiter = Data(("--" + boundary).utf8)
        let separator = Data("\r\n\r\n".utf8)
        var parts: [BodyEcho.Part] = []
        var cursor = body.startIndex
        guard let first = body.range(of: delimiter, in: cursor..<body.endIndex) else { return nil }
        cursor = first.upperBound
        while true {
            // After a delimiter: "--" ends the body, CRLF starts a part.
            if body[cursor...].starts(with: Data("--".utf8)) { break }
            guard body[cursor...].starts(with: Data("\r\n".utf8)) else { return nil }
            let partStart = cursor + 2
            guard let next = body.range(of: Data("\r\n".utf8) + delimiter, in: partStart..<body.endIndex),
                let headEnd = body.range(of: separator, in: partStart..<next.lowerBound)
            else { return nil }
            let head = String(decoding: body[partStart..<headEnd.lowerBound], as: UTF8.self)
            let content = body[headEnd.upperBound..<next.lowerBound]
            var disposition = ""
            var type: String?
            for line in head.components(separatedBy: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") { disposition = line }
                if lower.hasPrefix("content-type:") {
                    type = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                }
            }
            parts.append(
                BodyEcho.Part(
                    disposition: disposition, contentType: type, length: content.count,
                    sha256: BodyEcho.hex(SHA256.hash(data: content))))
            cursor = next.upperBound
        }
        return parts
    }
}
#endif
