import Foundation

/// Where the jar gets "now" from. Injected so tests can move time without sleeping.
public typealias CookieClock = @Sendable () -> Date

/// The wall clock.
public let systemCookieClock: CookieClock = { Date() }
