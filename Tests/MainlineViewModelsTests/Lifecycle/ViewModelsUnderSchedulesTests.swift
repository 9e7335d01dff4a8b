import MainlineTesting
import Testing

/// The view models' tick and virtual-time tests, run unchanged under 100 seeds of each exploring strategy: their
/// `TestLoop()`s take each run's schedule, so a tick and the timers, settle notifications and posts due with it run in
/// every order the schedules choose.
@MainActor
@Suite("View models under explored schedules")
struct ViewModelsUnderSchedulesTests {
    nonisolated static let strategies: [TestSchedule.Strategy] = [.random, .pct(depth: 3)]

    @Test(arguments: strategies)
    func theTickTestsPassUnderEverySchedule(strategy: TestSchedule.Strategy) async {
        let result = await explore(seeds: 0..<100, strategy: strategy) { _ in
            let ticks = TickTests()
            ticks.ticksFireAtExactVirtualTimesWhileResumed()
            ticks.ticksStopOnPauseAndStartAfreshOnResume()
            ticks.aLateTickRunsOnceAndTheMissedOnesAreSkippedAndCounted()
            ticks.aLateTickStandsForTheFirstMissedTickSoSkippedCountsOnlyTheOthers()
        }
        #expect(result.failingSeed == nil && result.isDeterministic)
    }

    @Test(arguments: strategies)
    func theVirtualTimeTestsPassUnderEverySchedule(strategy: TestSchedule.Strategy) async {
        let result = await explore(seeds: 0..<100, strategy: strategy) { _ in
            let virtualTime = VirtualTimeTests()
            await virtualTime.aResumedScopeThatSleepsASecondBeatsTenTimesInTenVirtualSeconds(.scopeSleep)
            await virtualTime.pausingAtFiveAndAHalfSecondsStopsItAtFive()
        }
        #expect(result.failingSeed == nil && result.isDeterministic)
    }
}
