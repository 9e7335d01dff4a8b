import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

extension EventLoopTests {
    /// The `SerialLoop` contract, one scenario at a time, against `MainLoop` in guest mode, an `EventLoop` and
    /// `TestLoop`.
    ///
    /// Nested in the `EventLoop` suite, whose serialization keeps its tests' global counts of live EventLoops free of
    /// the EventLoops created here; serialized itself, so that the cancellation race has the machine's cores.
    @Suite("SerialLoop contract", .serialized)
    @MainActor
    struct SerialLoopContractTests {
        @Test(arguments: LoopKind.allCases)
        func postsFromOneThreadRunInOrderExactlyOnce(_ kind: LoopKind) async {
            await kind.run(PostsFromOneThreadRunInOrderExactlyOnce())
        }

        @Test(arguments: LoopKind.allCases)
        func timersFireInDeadlineOrderWithTiesInSchedulingOrder(_ kind: LoopKind) async {
            await kind.run(TimersFireInDeadlineOrderWithTiesInSchedulingOrder())
        }

        @Test(arguments: LoopKind.allCases)
        func aPastDeadlineFiresInTheNextTimerPhase(_ kind: LoopKind) async {
            await kind.run(APastDeadlineFiresInTheNextTimerPhase())
        }

        @Test(arguments: LoopKind.allCases)
        func repeatingTimersKeepAFixedRate(_ kind: LoopKind) async {
            await kind.run(RepeatingTimersKeepAFixedRate())
        }

        @Test(arguments: LoopKind.allCases)
        func stopRefusesPostsThenDrains(_ kind: LoopKind) async {
            await kind.run(StopRefusesPostsThenDrains())
        }

        @Test(arguments: LoopKind.allCases)
        func theDrainDeadlineReleasesTheRest(_ kind: LoopKind) async {
            await kind.run(TheDrainDeadlineReleasesTheRest())
        }

        @Test(arguments: LoopKind.allCases)
        func anIdleBodyRunsOnce(_ kind: LoopKind) async {
            await kind.run(AnIdleBodyRunsOnce())
        }

        @Test(arguments: LoopKind.allCases)
        func cancelFromAnotherThreadEitherWinsOrTheBodyRuns(_ kind: LoopKind) async {
            await kind.run(CancelFromAnotherThreadEitherWinsOrTheBodyRuns(rounds: 50, timersPerRound: 40))
        }

        @Test(arguments: LoopKind.allCases)
        func sleepersWakeInDeadlineOrderWithTheLoopsTimers(_ kind: LoopKind) async {
            await kind.run(SleepersWakeInDeadlineOrderWithTheLoopsTimers())
        }

        @Test(arguments: LoopKind.allCases)
        func cancellingASleeperCancelsItsTimer(_ kind: LoopKind) async {
            await kind.run(CancellingASleeperCancelsItsTimer())
        }

        @Test(arguments: LoopKind.allCases)
        func aStoppedLoopWakesItsSleepersWithLoopStopped(_ kind: LoopKind) async {
            await kind.run(AStoppedLoopWakesItsSleepersWithLoopStopped())
        }
    }
}
