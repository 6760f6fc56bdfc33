import NIOCore
import Testing

/// Timeouts reach NIO through NIOCore's `TimeAmount(Duration)`: exact for real values, and clamped (not a trap)
/// for a timeout set to "never", which the body channel's limits and the proxy's policy allow.
struct TimeAmountDurationTests {
    @Test func durationsConvertExactlyAndClamp() {
        #expect(TimeAmount(.milliseconds(1500)) == .milliseconds(1500))
        #expect(TimeAmount(.nanoseconds(7)) == .nanoseconds(7))
        #expect(TimeAmount(.seconds(Int64.max)) == .nanoseconds(.max))
        #expect(TimeAmount(.seconds(Int64.max / 1_000_000_000) + .seconds(1)) == .nanoseconds(.max))
    }
}
