import MainlineLoop
import Testing

@testable import MainlineEvents

/// `_EventObservers`, the weak-observer side of hubs and events: what its checks for dead observers cost.
@MainActor
@Suite("Event observers")
struct EventObserversTests {
    final class Observer {}

    // Looking for dead observers at every add and remove visits about N² weak observers over N adds and N removals
    // (2,000,000 for these 1,000); the check runs once the changes since the last reach half the weak observers, so
    // the visits stay within a few per observer.
    @Test func addingAndRemovingNObserversLooksAtLinearlyManyForDeadOnes() {
        let count = 1_000
        let observers = _EventObservers(owner: "test")
        let objects = (0..<count).map { _ in Observer() }
        for object in objects { observers.add(object: object, as: "an observer") }
        for object in objects { observers.remove(object: object, as: "an observer") }
        #expect(observers.isEmpty)
        #expect(observers.deadCheckVisits <= 4 * count, "looked at \(observers.deadCheckVisits) observers")
    }
}
