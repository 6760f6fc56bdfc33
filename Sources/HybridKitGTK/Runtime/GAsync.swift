#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import HybridKit

/// Bridges GIO's callback style (`*_async` + `GAsyncReadyCallback` + `*_finish`) to Swift's async/await.
///
/// `start` receives the C callback and its user data and must pass both to the GIO call; `finish` runs in
/// that callback, on the GTK thread, with the source object and the result, and turns them into a value.
@GTKActor
func gioAsync<T: Sendable>(
    start: (GAsyncReadyCallback, gpointer) -> Void,
    finish: @escaping (UnsafeMutablePointer<GObject>?, OpaquePointer?) -> Result<T, EngineError>
) async throws(EngineError) -> T {
    let result: Result<T, EngineError> = await withCheckedContinuation { continuation in
        let pending = PendingGIOCall { source, asyncResult in
            continuation.resume(returning: finish(source, asyncResult))
        }
        start(
            { source, asyncResult, data in
                guard let data else { return }
                Unmanaged<PendingGIOCall>.fromOpaque(data).takeRetainedValue().complete(source, asyncResult)
            }, Unmanaged.passRetained(pending).toOpaque())
    }
    return try result.get()
}

/// The user data of one GIO call in flight; released by the callback.
private final class PendingGIOCall {
    let complete: (UnsafeMutablePointer<GObject>?, OpaquePointer?) -> Void
    init(_ complete: @escaping (UnsafeMutablePointer<GObject>?, OpaquePointer?) -> Void) { self.complete = complete }
}

/// The message of a `GError`, which is then freed.
func takeGError(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
}
#endif
