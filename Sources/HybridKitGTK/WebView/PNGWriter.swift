#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation

/// Encodes a cairo surface as PNG bytes in memory.
enum PNGWriter {
    private final class Sink { var data = Data() }

    static func encode(_ surface: OpaquePointer) -> Data? {
        let sink = Sink()
        let status = cairo_surface_write_to_png_stream(
            surface,
            { closure, bytes, length in
                guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
                Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        return status == CAIRO_STATUS_SUCCESS ? sink.data : nil
    }
}
#endif
