import MainlineLoop
import Testing

/// The exploration lane's state machine (`_TaskLane.State`), stepped without tasks or queues: which jobs it holds,
/// when it asks for its pump, what it hands back and what it reports.
@Suite("Task lane: the state machine")
struct TaskLaneStateTests {
    typealias State = _TaskLane.State<String>

    static func watching(driver: UInt64 = 10, firstTaskID: UInt64 = 100) -> State {
        var state = State()
        let started = state.begin(State.Run(driver: driver, firstTaskID: firstTaskID))
        #expect(started)
        return state
    }

    @Test func aLaneThatWatchesNothingHoldsNothingAndReportsNothing() {
        var state = State()
        let fromInside = state.hold("a", taskID: 101, fromOutside: false)
        let fromOutside = state.hold("b", taskID: 101, fromOutside: true)
        #expect(fromInside == .runNow && fromOutside == .runNow)
        state.record(_Escape(kind: .realClockRead, detail: "MainLoop.now", context: "the test body"))
        #expect(!state.mayAdopt(taskID: 101))
        let (wasWatching, jobs, escapes) = state.finish()
        #expect(!wasWatching && jobs.isEmpty && escapes.isEmpty)
    }

    @Test func onlyTasksNewerThanTheRunAndNotItsDriverMayJoin() {
        let state = Self.watching(driver: 150, firstTaskID: 100)
        #expect(!state.mayAdopt(taskID: 99) && !state.mayAdopt(taskID: 100))
        #expect(state.mayAdopt(taskID: 101))
        #expect(!state.mayAdopt(taskID: 150) && state.isDriver(150))
    }

    @Test func jobsFromTheMainActorAreHeldNumberedByTaskAndAskForOnePump() {
        var state = Self.watching()
        let holds = [
            state.hold("a1", taskID: 200, fromOutside: false), state.hold("b1", taskID: 300, fromOutside: false),
            state.hold("a2", taskID: 200, fromOutside: false),
        ]
        #expect(holds == [.held(queuePump: true), .held(queuePump: false), .held(queuePump: false)], "one pump queued")
        #expect(state.heldTasks == [1, 2, 1])
        #expect(state.number(ofTask: 300) == 2)
        let taken = [state.take(at: 1), state.take(at: 7), state.take(at: 0), state.take(at: 0)]
        #expect(taken == ["b1", "a2", "a1", nil], "an index past the end takes the last; nothing held, nothing taken")
    }

    @Test func theQueuedPumpTakesJobsOnlyWhileNoStepRunsAndAsksAgainWhileJobsAreHeld() {
        var state = Self.watching()
        _ = state.hold("a", taskID: 200, fromOutside: false)
        _ = state.hold("b", taskID: 300, fromOutside: false)
        let stepBegan = state.stepping(begins: true)
        let pumpDuringStep = state.pumpRuns()
        #expect(!stepBegan && !pumpDuringStep, "a step is running: it takes the jobs")
        let stepEnded = state.stepping(begins: false)
        #expect(stepEnded, "the step ended with jobs held: the pump is due again")
        let firstPump = state.pumpRuns()
        _ = state.take(at: 0)
        let again = state.pumpRanJob()
        #expect(firstPump && again, "one job still held")
        let secondPump = state.pumpRuns()
        _ = state.take(at: 0)
        let afterLast = state.pumpRanJob()
        #expect(secondPump && !afterLast, "nothing held")
        let begins = state.stepping(begins: true)
        let ends = state.stepping(begins: false)
        #expect(!begins && !ends, "no job held: no pump")
    }

    @Test func aJobFromOutsideRunsAtOnceAndIsAnEscapeUnlessItsTaskSaidSo() {
        var state = Self.watching()
        let unsaid = state.hold("a", taskID: 200, fromOutside: true)
        state.allow(taskID: 300, entering: true)
        let said = state.hold("b", taskID: 300, fromOutside: true)
        state.allow(taskID: 300, entering: false)
        let saidNoLonger = state.hold("c", taskID: 300, fromOutside: true)
        #expect([unsaid, said, saidNoLonger] == [.runNow, .runNow, .runNow])
        #expect(!state.hasHeldJobs)
        let escapes = state.finish().escapes
        #expect(
            escapes.map(\.detail) == [
                "task 1 of the run was resumed from outside it", "task 2 of the run was resumed from outside it",
            ]
        )
        #expect(escapes.allSatisfy { $0.kind == .realWait })
    }

    @Test func finishingHandsBackTheHeldJobsInOrderWithTheEscapesAndEmptiesTheLane() {
        var state = Self.watching()
        _ = state.hold("a", taskID: 200, fromOutside: false)
        _ = state.hold("b", taskID: 300, fromOutside: false)
        state.record(_Escape(kind: .postFromOtherThread, detail: "a post at X.swift:1", context: "a thread"))
        let (wasWatching, jobs, escapes) = state.finish()
        #expect(wasWatching && jobs == ["a", "b"] && escapes.count == 1)
        #expect(state.run == nil && !state.hasHeldJobs && state.number(ofTask: 200) == nil)
        let startedAgain = state.begin(State.Run(driver: 1, firstTaskID: 2))
        #expect(startedAgain, "a finished lane can watch a new run")
    }
}
