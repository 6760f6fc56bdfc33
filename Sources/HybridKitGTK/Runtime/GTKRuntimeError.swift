#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
/// Why the GTK thread could not start.
public enum GTKRuntimeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No X display could be opened or started.
    case noDisplay(String)
    /// `gtk_init_check` failed on the display.
    case gtkInitFailed(display: String)
    /// ``GTKRuntime/shutDown()`` was called: GTK's thread has stopped for good in this process.
    case shutDown

    public var description: String {
        switch self {
        case .noDisplay(let why): "no display for WebKitGTK: \(why)"
        case .gtkInitFailed(let display):
            "GTK could not open display '\(display)'; check that the X server runs and DISPLAY is right"
        case .shutDown: "the GTK runtime was shut down; web views cannot be created again in this process"
        }
    }
}
#endif
