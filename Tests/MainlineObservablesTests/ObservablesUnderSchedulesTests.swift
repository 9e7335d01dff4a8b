import MainlineLoop
import MainlineObservables
import MainlineTesting
import Testing

/// The observables' own tests, run unchanged under 100 seeds of each exploring strategy: their `TestLoop()`s take each
/// run's schedule, so the posts, disposals ended on the loop and rounds they start run in every order the schedules
/// choose. (Tests of real threads and of tasks the runtime orders are not among them.) And one scenario whose orders
/// matter: values set during a round, while the observers that set them and those that show them are attached at one
/// instant.
@MainActor
@Suite("Observables under explored schedules")
struct ObservablesUnderSchedulesTests {
    nonisolated static let seeds: Range<UInt64> = 0..<100
    nonisolated static let strategies: [TestSchedule.Strategy] = [.random, .pct(depth: 3)]

    @Test(arguments: strategies)
    func theSubjectTestsPassUnderEverySchedule(strategy: TestSchedule.Strategy) async {
        let result = await explore(seeds: Self.seeds, strategy: strategy) { _ in
            let subjects = SubjectTests()
            subjects.anUninitializedSubjectStartsWithNothingAndObserversSeeNil()
            subjects.postingNilToAnOptionalUninitializedSubjectIsAValue()
            subjects.updatesReachEveryObserverInRegistrationOrder()
            subjects.equalValuesAreConflatedAndNonEquatableValuesAlwaysNotify()
            subjects.disposedObserversGetNothingMore()
            subjects.aDefaultSubjectReplacesNilAndStaysSilentOnRepeatedNil()
            subjects.postsBeforeAnyoneObservesAreKept()
            subjects.threeObserversDisposingEachOtherDuringOneNotificationEndWithTheRightValue()
            subjects.dynamicMemberLookupReadsTheCurrentValue()
            let reentrancy = SubjectReentrancyTests()
            reentrancy.anObserverAfterTheSetterSeesTheRoundsValueThenTheNewOneInOneMoreRound()
            reentrancy.everyObserverAfterTheSetterSeesTheNewValueOnceAfterTheRound()
            reentrancy.anObserverThatSetsItsSubjectIsNotReentered()
            reentrancy.valuesSetSeveralTimesInOneRoundReachTheObserversAsTheLatestOnly()
            reentrancy.noMoreRoundRunsWhenTheValueIsBackToTheRoundsOwn()
            let adapters = AdapterTests()
            adapters.aSubjectOverAReadWritePairWritesThroughBeforeNotifying()
            adapters.aSubjectOverAKeyPathWritesToTheObject()
            adapters.twoSubjectsBoundBothWaysStayEqualWithoutEcho()
            await adapters.aSubjectBoundToAnObservablePropertyFollowsItBothWays()
        }
        #expect(result.failingSeed == nil && result.isDeterministic)
        #expect(result.runs == Self.seeds.count + 2)
    }

    @Test(arguments: strategies)
    func aValueSetDuringARoundReachesTheObserversAfterItOnceTheRoundHasEndedInEveryOrder(
        strategy: TestSchedule.Strategy
    ) async {
        let result = await explore(seeds: Self.seeds, strategy: strategy) { _ in
            let run = Self.clampedSetpointShown(on: TestLoop())
            #expect(run.shown.last == 10 && run.setpoint == 10, "the display shows the clamped value last: \(run)")
            #expect(!run.clampReentered, "the clamp ran inside its own call")
        }
        #expect(result.failingSeed == nil && result.isDeterministic)
    }

    /// A thermostat's setpoint, clamped to 10 by an observer of its own, and a display of it; the clamp's limit
    /// arrives, the screen with the display opens and the user's 15 arrives at the same instant (three timers due
    /// together, scheduled in the order 15, limit, screen). Returns what the display showed, the setpoint at the end,
    /// and whether the clamp was called while a round's call of it was running.
    ///
    /// In three orders of the six — the clamp attached before the 15 arrives — the 15 starts a round in which the clamp
    /// sets 10: a subject that re-entered its observers would call the clamp again inside its own call and, in the one
    /// order that also attached the display after the clamp, show the display 10 and then the round's 15, which it then
    /// keeps showing. The real loop's order (15 first) hides both.
    static func clampedSetpointShown(on loop: TestLoop) -> (shown: [Int], setpoint: Int, clampReentered: Bool) {
        let setpoint = subjectOf(0, loop: loop)
        var shown: [Int] = []
        var clamping = false
        var attaching = false
        var clampReentered = false
        var observations: [Disposable] = []
        loop.schedule(after: .milliseconds(100)) { setpoint.value = 15 }
        loop.schedule(after: .milliseconds(100)) {
            // The call `observe` makes at once is not a round: a value the clamp sets from it is notified at once, to
            // the clamp too. Only a round's calls are promised not to nest.
            attaching = true
            observations.append(
                setpoint.observe { value in
                    if clamping && !attaching { clampReentered = true }
                    clamping = true
                    if value > 10 { setpoint.value = 10 }
                    clamping = false
                }
            )
            attaching = false
        }
        loop.schedule(after: .milliseconds(100)) {
            observations.append(setpoint.observe { shown.append($0) })
        }
        loop.advance(by: .milliseconds(100))
        observations.forEach { $0.dispose() }
        return (shown, setpoint.value, clampReentered)
    }
}
