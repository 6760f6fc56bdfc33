// Type-checking stand-in for the Synchronization module (Swift 6.0, iOS 18), used only when the SDK given to
// typecheck.sh predates it (an iOS 17 SDK). It declares the signatures HybridKit's code calls, with the real
// module's generic, ownership and `sending` shapes, so calls are checked the way the iOS 18 SDK checks them;
// dependencies are compiled interface-only, so the bodies never matter and nothing here ever runs.

/// `Synchronization.Mutex`: a non-copyable lock owning its value.
public struct Mutex<Value: ~Copyable>: ~Copyable {
    public init(_ initialValue: consuming sending Value) { fatalError("type-checking stand-in") }

    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result { fatalError("type-checking stand-in") }

    // Result stays Copyable here: an older SDK's Optional cannot hold a non-copyable value.
    public borrowing func withLockIfAvailable<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? { fatalError("type-checking stand-in") }
}

extension Mutex: @unchecked Sendable where Value: ~Copyable {}

public struct AtomicLoadOrdering: Sendable {
    public static var relaxed: Self { fatalError("type-checking stand-in") }
    public static var acquiring: Self { fatalError("type-checking stand-in") }
    public static var sequentiallyConsistent: Self { fatalError("type-checking stand-in") }
}

public struct AtomicStoreOrdering: Sendable {
    public static var relaxed: Self { fatalError("type-checking stand-in") }
    public static var releasing: Self { fatalError("type-checking stand-in") }
    public static var sequentiallyConsistent: Self { fatalError("type-checking stand-in") }
}

public struct AtomicUpdateOrdering: Sendable {
    public static var relaxed: Self { fatalError("type-checking stand-in") }
    public static var acquiring: Self { fatalError("type-checking stand-in") }
    public static var releasing: Self { fatalError("type-checking stand-in") }
    public static var acquiringAndReleasing: Self { fatalError("type-checking stand-in") }
    public static var sequentiallyConsistent: Self { fatalError("type-checking stand-in") }
}

/// The value types `Atomic` accepts (the real protocol maps each to a storage representation).
public protocol AtomicRepresentable {}
extension Int: AtomicRepresentable {}
extension Int64: AtomicRepresentable {}
extension UInt64: AtomicRepresentable {}
extension Int32: AtomicRepresentable {}
extension UInt32: AtomicRepresentable {}
extension UInt: AtomicRepresentable {}
extension Bool: AtomicRepresentable {}

/// `Synchronization.Atomic`: a non-copyable atomic value.
public struct Atomic<Value: AtomicRepresentable>: ~Copyable {
    public init(_ initialValue: consuming Value) { fatalError("type-checking stand-in") }
    public borrowing func load(ordering: AtomicLoadOrdering) -> Value { fatalError("type-checking stand-in") }
    public borrowing func store(_ desired: consuming Value, ordering: AtomicStoreOrdering) {
        fatalError("type-checking stand-in")
    }
    public borrowing func exchange(_ desired: consuming Value, ordering: AtomicUpdateOrdering) -> Value {
        fatalError("type-checking stand-in")
    }
    public borrowing func compareExchange(
        expected: consuming Value, desired: consuming Value, ordering: AtomicUpdateOrdering
    ) -> (exchanged: Bool, original: Value) { fatalError("type-checking stand-in") }
}

extension Atomic: @unchecked Sendable {}

extension Atomic where Value: FixedWidthInteger {
    @discardableResult
    public borrowing func add(_ operand: Value, ordering: AtomicUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        fatalError("type-checking stand-in")
    }
    @discardableResult
    public borrowing func subtract(
        _ operand: Value, ordering: AtomicUpdateOrdering
    ) -> (oldValue: Value, newValue: Value) { fatalError("type-checking stand-in") }
    @discardableResult
    public borrowing func wrappingAdd(
        _ operand: Value, ordering: AtomicUpdateOrdering
    ) -> (oldValue: Value, newValue: Value) { fatalError("type-checking stand-in") }
    @discardableResult
    public borrowing func wrappingSubtract(
        _ operand: Value, ordering: AtomicUpdateOrdering
    ) -> (oldValue: Value, newValue: Value) { fatalError("type-checking stand-in") }
}
