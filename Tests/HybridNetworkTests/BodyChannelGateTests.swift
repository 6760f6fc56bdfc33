import Testing

@testable import HybridNetwork

/// The gate's decisions alone, in the orders that are hard to hit with sockets: a newcomer accepted before its
/// head arrived when every slot is young, and the descriptors a held one counts for.
struct BodyChannelGateTests {
    @Test func aNewcomerWithNothingSentYetGetsOneMoreLookWhenNoSlotMayGo() {
        let gate = BodyChannelGate(capacity: 2)
        for _ in 0..<2 {
            guard case .admitted = gate.admit(ready: false) else {
                Issue.record("a free slot was refused")
                return
            }
        }
        // Both slots hold half-sent heads younger than the grace: nothing may go for a newcomer that is not ready.
        guard case .lookAgain = gate.admit(ready: false) else {
            Issue.record("a newcomer with nothing sent yet was not held for another look")
            return
        }
        #expect(gate.held == 3, "a held connection is a descriptor too")
        // Its whole head arrived: it is ready now, and the half-sent head waiting longest makes room.
        guard case .admitted(_, let evicting) = gate.admit(ready: true, looked: true) else {
            Issue.record("a ready head after another look was refused")
            return
        }
        #expect(evicting == nil, "no channel is attached in this test, so none is handed back to close")
        #expect(gate.held == 3, "two served and the one dropped until it closes")
    }

    @Test func aSecondLookIsTheLast() {
        let gate = BodyChannelGate(capacity: 1)
        _ = gate.admit(ready: false)
        guard case .lookAgain = gate.admit(ready: false) else {
            Issue.record("not held for another look")
            return
        }
        // Still no whole head (a dripping sender): closed, never held again.
        guard case .refused = gate.admit(ready: false, looked: true) else {
            Issue.record("a connection with half a head was admitted or held twice")
            return
        }
        #expect(gate.held == 1)
    }

    @Test func heldConnectionsCountTowardsTwiceTheSlots() {
        let gate = BodyChannelGate(capacity: 1)
        _ = gate.admit(ready: false)
        guard case .lookAgain = gate.admit(ready: false) else {
            Issue.record("not held for another look")
            return
        }
        // Two descriptors for one slot: the next newcomer is closed at once, held or not.
        guard case .refused = gate.admit(ready: false) else {
            Issue.record("a third descriptor was held for one slot")
            return
        }
        gate.lookAbandoned(stopping: false)
        #expect(gate.held == 1)
        guard case .lookAgain = gate.admit(ready: false) else {
            Issue.record("the room a closed look left was not reused")
            return
        }
    }
}
