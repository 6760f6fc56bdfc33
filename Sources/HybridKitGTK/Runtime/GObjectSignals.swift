#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK

/// Connects GObject signals to Swift closures.
///
/// `g_signal_connect` is a macro Swift cannot import; this wraps `g_signal_connect_data` with a retained box
/// that GLib releases (destroy notify) when the handler is disconnected or the object is finalized, so a
/// connection never outlives, nor leaks, its closure.
final class SignalBox<Callback> {
    let callback: Callback
    init(_ callback: Callback) { self.callback = callback }

    static func from(_ data: gpointer?) -> Callback? {
        guard let data else { return nil }
        return Unmanaged<SignalBox<Callback>>.fromOpaque(data).takeUnretainedValue().callback
    }
}

/// `as` names the callback's type, which the C handler must read back with the very same
/// `SignalBox<Callback>`: a closure inferred with another type (say, returning `Void?`) would be called
/// with the wrong convention.
@discardableResult
func connectSignal<Callback>(
    _ instance: UnsafeMutableRawPointer, _ signal: String, handler: GCallback, as type: Callback.Type,
    callback: Callback
) -> gulong {
    let box = Unmanaged.passRetained(SignalBox(callback)).toOpaque()
    return g_signal_connect_data(
        instance, signal, handler, box,
        { data, _ in
            guard let data else { return }
            Unmanaged<AnyObject>.fromOpaque(data).release()
        }, GConnectFlags(rawValue: 0))
}

/// Frees a `gchar*` after copying it into a Swift string.
func takeGString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}

/// Reads a borrowed `const gchar*`.
func borrowGString(_ pointer: UnsafePointer<gchar>?) -> String? {
    pointer.map { String(cString: $0) }
}
#endif
