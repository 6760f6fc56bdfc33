import Synchronization

/// A key for a value shared by the modules of one page.
public protocol PageContextKey {
    associatedtype Value: Sendable
}

/// State the modules of one page share (a shared context, so modules need not reach each other): the host object that
/// owns the page, and typed values any module may read or write. Safe from any thread.
public final class PageContext: Sendable {
    private let values = Mutex<[ObjectIdentifier: any Sendable]>([:])
    private let hostReference = Mutex<WeakHost>(WeakHost())

    private struct WeakHost: @unchecked Sendable {
        // Only ever read and written under the mutex; the object itself is the host's business.
        weak var object: AnyObject?
    }

    public init() {}

    /// The object hosting the page (held weakly: the page never keeps its host alive).
    public var host: AnyObject? {
        get { hostReference.withLock { $0.object } }
        set { hostReference.withLock { $0.object = newValue } }
    }

    public subscript<Key: PageContextKey>(_ key: Key.Type) -> Key.Value? {
        get { values.withLock { $0[ObjectIdentifier(key)] as? Key.Value } }
        set { values.withLock { $0[ObjectIdentifier(key)] = newValue } }
    }
}
