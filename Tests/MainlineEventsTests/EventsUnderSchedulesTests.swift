import MainlineEvents
import MainlineLoop
import MainlineTesting
import Testing

/// The events' and mailboxes' own tests, run unchanged under 100 seeds of each exploring strategy: their `TestLoop()`s
/// take each run's schedule, so timers due at one instant and settle notifications of one height run in every order
/// the schedules choose. (Tests that state the real loop's order itself — "same height: request order" — and tests of
/// real threads are not among them.)
@MainActor
@Suite("Events and mailboxes under explored schedules")
struct EventsUnderSchedulesTests {
    nonisolated static let seeds: Range<UInt64> = 0..<100
    nonisolated static let strategies: [TestSchedule.Strategy] = [.random, .pct(depth: 3)]

    @Test(arguments: strategies)
    func theEventsTestsPassUnderEverySchedule(strategy: TestSchedule.Strategy) async {
        let result = await explore(seeds: Self.seeds, strategy: strategy) { _ in
            let proxies = SimpleEventProxyTests()
            proxies.anySourceOrADirectTriggerCoalescesIntoOneProxyNotification()
            proxies.theVariadicFormObservesEverySource()
            proxies.deallocatingTheProxyUnsubscribesItFromItsSources()
            let lazy = LazySimpleEventTests()
            lazy.triggersFromALoopCallbackAreDeliveredOnceInThatIterationsSettleNeverSynchronously()
            lazy.aTriggerOutsideTheLoopIsDeliveredAtTheNextStep()
            lazy.aTriggerDuringDeliverySchedulesExactlyOneMoreWithoutADiagnostic()
            lazy.anEventFreedWhileADeliveryIsPendingDeliversNothingAndLeaksNothing()
            lazy.aSelfRetriggeringEventCannotStarveATimer()
            lazy.aProxyIsHigherThanItsSourcesAndEventsDefaultToHeightZero()
            lazy.aStoppedLoopDeliversNothing()
            Self.aProxyTriggeredWithItsSourcesIsDeliveredOnceAfterThem()
        }
        #expect(result.failingSeed == nil && result.isDeterministic)
        #expect(result.runs == Self.seeds.count + 2)
    }

    @Test(arguments: strategies)
    func theMailboxTestsPassUnderEverySchedule(strategy: TestSchedule.Strategy) async {
        let result = await explore(seeds: Self.seeds, strategy: strategy) { _ in
            let simple = SimpleMailboxTests()
            simple.aNewMailboxIsEmptyAndTakingFromItTriggersNothing()
            simple.takeReturnsTheValueClearsTheBoxAndTriggers()
            simple.replaceTriggersOnlyWhenTheValueDiffers()
            simple.replaceEvenIfSameAlwaysStoresAndTriggers()
            simple.placeIfFitsStoresOnlyIntoAnEmptyBox()
            simple.aStoredNilOfAnOptionalPayloadIsAValue()
            simple.nonEquatablePayloadsHaveEveryCallButReplace()
            KeyedMailboxTests().theLatestValuePerKeyInFirstPlacedKeyOrder()
            let latest = LatestMailboxTests()
            latest.placeSaysItAcceptedEveryValueAsEveryThreadSafeMailboxDoes()
            latest.theLoopTakesTheLatestValueAndDroppedOnesAreCounted()
        }
        #expect(result.failingSeed == nil && result.isDeterministic)
    }

    /// Two lazy sources and their proxy are triggered by timers due at the same instant, the proxy directly as well:
    /// whatever the order, the proxy is delivered once, after both sources. (With the proxy at its sources' height,
    /// an order that delivers it first delivers it twice, the first time before a source: the real loop's order
    /// hides that when the proxy's timer was scheduled last.)
    static func aProxyTriggeredWithItsSourcesIsDeliveredOnceAfterThem() {
        let loop = TestLoop()
        let a = LazySimpleEvent(loop: loop)
        let b = LazySimpleEvent(loop: loop)
        let proxy = SimpleEventProxy(loop: loop, events: a, b)
        var log: [String] = []
        let tokens = [
            a.addObserver { _ in log.append("a") },
            b.addObserver { _ in log.append("b") },
            proxy.addObserver { _ in log.append("proxy") },
        ]
        loop.schedule(after: .seconds(1)) { a.trigger() }
        loop.schedule(after: .seconds(1)) { b.trigger() }
        loop.schedule(after: .seconds(1)) { proxy.trigger() }
        loop.advance(by: .seconds(1))
        #expect(log.count == 3 && log.last == "proxy" && log.filter { $0 == "proxy" }.count == 1, "\(log)")
        _ = tokens
    }
}
