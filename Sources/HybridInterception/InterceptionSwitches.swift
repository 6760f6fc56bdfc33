import Synchronization

/// Run-time switches native can flip (a remote config, a kill switch). The scheme handler reads them per
/// request; ``RequestInterception`` also passes them to pages.
public final class InterceptionSwitches: Sendable {
    private struct State {
        var hooksEnabled = true
        var proxyEnabled = true
    }

    private let state = Mutex(State())

    public init(hooksEnabled: Bool = true, proxyEnabled: Bool = true) {
        state.withLock {
            $0.hooksEnabled = hooksEnabled
            $0.proxyEnabled = proxyEnabled
        }
    }

    /// Off: pages send requests to the engine unhooked, and the reserved paths refuse new uploads.
    public var hooksEnabled: Bool {
        get { state.withLock { $0.hooksEnabled } }
        set { state.withLock { $0.hooksEnabled = newValue } }
    }

    /// Off: full-proxy pages fall back to body-by-id, and the proxy path refuses requests.
    public var proxyEnabled: Bool {
        get { state.withLock { $0.proxyEnabled } }
        set { state.withLock { $0.proxyEnabled = newValue } }
    }
}
