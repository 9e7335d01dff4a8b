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
        event.addObserver { _ in calls += 1 }?.addTo(bag)
        event.trigger()
        bag.dispose()
        event.trigger()
        #expect(calls == 1)
    }

    @Test func disposingFromAnotherThreadStopsTheObserverAtOnce() async {
        let event = SimpleEvent()
        var calls = 0
        let disposable = Disposable(event.addObserver { _ in calls += 1 }!)
        await Task.detached { disposable.dispose() }.value
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
