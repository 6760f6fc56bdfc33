#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird

/// A route that reads a POST's body and answers only its length, to any origin: the baseline of a page sending
/// bytes with nothing done to them (`hybrid bench bridge`). Nothing is hashed or kept, so the server costs what
/// receiving costs.
public enum BodySink {
    public static let path = "/sink"

    public static func addRoute(to router: Router<BasicRequestContext>) {
        router.post(RouterPath(path)) { request, _ in
            var length = 0
            for try await buffer in request.body { length += buffer.readableBytes }
            return Response(
                status: .ok, headers: [.accessControlAllowOrigin: "*", .contentType: "text/plain"],
                body: .init(byteBuffer: ByteBuffer(string: "\(length)")))
        }
    }
}
#endif
