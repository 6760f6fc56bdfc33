import Foundation
import Logging

/// How engines read a custom-scheme request body: up to the handler's ``SchemeHandler/maximumBodySize`` and no
/// further, so no page can make native code hold more than that for one request. Shared by both adapters.
public enum RequestBodyLimit {
    /// 64 MiB: far above a form or a JSON document; large files go over the request hooks' body channel (or in
    /// 1 MB slices), never as one body here.
    public static let defaultMaximum = 64 << 20

    /// Reads with `read` (which fills the buffer it is given and returns the bytes read, 0 at the end or a
    /// negative number on error) until the end: the body, or nil once it is over `limit` bytes.
    public static func collect(limit: Int, read: (UnsafeMutableRawBufferPointer) -> Int) -> Data? {
        var data = Data()
        let chunkSize = 64 * 1024
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let count = read(chunk)
            guard count > 0 else { return data }
            guard data.count + count <= limit else { return nil }
            data.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
        }
    }

    /// What the task fails with (the page sees a network error), logged as a warning that says what to change.
    public static func refuse(_ request: EngineRequest, limit: Int, logger: Logger) -> SchemeTaskError {
        logger.warning(
            "custom-scheme request body refused: over the handler's limit of \(limit) bytes; send large data as a Blob or bytes through the request hooks (they go over the body channel), or raise SchemeHandler.maximumBodySize",
            metadata: ["url": "\(request.url.absoluteString)", "method": "\(request.method)"])
        return .failed("the request body is over \(limit) bytes, this scheme's limit")
    }
}
