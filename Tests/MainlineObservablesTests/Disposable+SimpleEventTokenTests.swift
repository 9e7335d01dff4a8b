import Foundation
import MainlineEvents
import MainlineLoop
import MainlineObservables
import Testing

/// A `SimpleEventToken` used as a `Disposable`: the disposable owns the token.
@MainActor
@Suite("Disposable of a SimpleEventToken")
struct DisposableSimpleEventTokenTests {
    @Test func aTokenInABagEndsItsObservationWhenTheBagIsDisposed() {
        let event = SimpleEvent()
        var calls = 0
        let bag = DisposeBag()
        let disposable = event.addObserver { _ in calls += 1 }?.addTo(bag)
        event.trigger()
        bag.dispose()
        event.trigger()
        #expect(calls == 1)
        _ = disposable  // still held: disposing ended the observation, not a release
    }

    @Test func disposingFromAnotherThreadStopsTheObserverAtOnce() {
        let event = SimpleEvent()
        var calls = 0
        let disposable = Disposable(event.addObserver { _ in calls += 1 }!)
        // The main actor waits, without yielding, until another thread has disposed: the removal that dispose()
        // hands to the main actor cannot have run before the trigger.
        let disposed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            disposable.dispose()
            disposed.signal()
        }
        disposed.wait()
        event.trigger()
        #expect(calls == 0, "skipped even before the main actor removed it")
    }

    @Test func releasingTheDisposableReleasesTheTokenAndSoEndsTheObservation() {
        let event = SimpleEvent()
        var calls = 0
        var disposable: Disposable? = Disposable(event.addObserver { _ in calls += 1 }!)
        event.trigger()
        disposable = nil
        event.trigger()
        #expect(calls == 1)
        _ = disposable
    }
}
