import HybridKit
import Testing

/// The call order both adapters enforce before they touch their engine (WKURLSchemeTask raises on any breach).
@Suite struct SchemeTaskOrderTests {
    @Test func theOrderWebKitAccepts() {
        var order = SchemeTaskOrder()
        #expect(order.admit(.respond) == nil)
        #expect(order.admit(.send) == nil)
        #expect(order.admit(.send) == nil)
        #expect(order.admit(.finish) == nil)
        #expect(order.state == .ended)
        #expect(!order.isOpen)
    }

    @Test func failIsAllowedBeforeAndAfterTheResponse() {
        var before = SchemeTaskOrder()
        #expect(before.admit(.fail) == nil)
        var after = SchemeTaskOrder()
        _ = after.admit(.respond)
        #expect(after.admit(.fail) == nil)
        #expect(after.state == .ended)
    }

    @Test func outOfOrderCallsAreRefusedAndLeaveTheStateAlone() {
        var order = SchemeTaskOrder()
        #expect(order.admit(.send) == .dataBeforeResponse)
        #expect(order.admit(.finish) == .finishWithoutResponse)
        #expect(order.state == .awaitingResponse)
        _ = order.admit(.respond)
        #expect(order.admit(.respond) == .secondResponse)
        #expect(order.state == .responding)
        _ = order.admit(.finish)
        #expect(order.admit(.send) == .afterEnd(.send))
        #expect(order.admit(.fail) == .afterEnd(.fail))
        #expect(order.admit(.finish) == .afterEnd(.finish))
    }

    @Test func nothingAfterStop() {
        var order = SchemeTaskOrder()
        _ = order.admit(.respond)
        let first = order.stop()
        let second = order.stop()
        #expect(first)
        #expect(!second, "a second stop reports the task was already closed")
        for call in [SchemeTaskOrder.Call.respond, .send, .finish, .fail] {
            #expect(order.admit(call) == .afterStop(call))
        }
        var ended = SchemeTaskOrder()
        _ = ended.admit(.fail)
        let stoppedEnded = ended.stop()
        #expect(!stoppedEnded, "stopping an ended task tells the handler nothing")
        #expect(ended.state == .ended)
    }

    @Test func violationsSayWhatToDo() {
        #expect(SchemeTaskOrderViolation.dataBeforeResponse.description.contains("respond(_:) first"))
        #expect(SchemeTaskOrderViolation.finishWithoutResponse.description.contains("failed instead"))
    }
}
