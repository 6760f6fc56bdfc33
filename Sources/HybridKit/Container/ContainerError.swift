
/// Why a container could not be made.
public enum ContainerError: Error, CustomStringConvertible {
    /// The engine refused something (a scheme, a view).
    case engine(EngineError)
    /// The bridge could not be attached (its runtime resources are missing, …).
    case bridge(any Error)
    /// A page feature failed to contribute or attach.
    case feature(String, any Error)

    public var description: String {
        switch self {
        case .engine(let error): "the engine refused the page: \(error)"
        case .bridge(let error): "the bridge could not be attached: \(error)"
        case .feature(let name, let error): "the page feature \(name) failed: \(error)"
        }
    }
}
