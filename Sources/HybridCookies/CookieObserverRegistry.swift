/// Registered change handlers, keyed by a token id so they can be removed.
struct CookieObserverRegistry {
    private(set) var handlersByID: [UInt64: @Sendable (CookieChange) -> Void] = [:]
    private var nextID: UInt64 = 0

    var handlers: [@Sendable (CookieChange) -> Void] { Array(handlersByID.values) }

    mutating func add(_ handler: @escaping @Sendable (CookieChange) -> Void) -> UInt64 {
        nextID += 1
        handlersByID[nextID] = handler
        return nextID
    }

    mutating func remove(_ id: UInt64) {
        handlersByID[id] = nil
    }
}
