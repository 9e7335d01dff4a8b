import MainlineTesting
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// `ScheduledTask.cancel()` from any thread (the race itself is in the `SerialLoop` contract suite).
@Suite("ScheduledTask cancellation")
@MainActor
struct ScheduledTaskCancellationTests {
    /// Records where its last reference went away.
    final class Captured: Sendable {
        let releasedOnMainActor: _Locked<Bool?>
        init(_ flag: _Locked<Bool?>) { releasedOnMainActor = flag }
        deinit { releasedOnMainActor.withLock { $0 = _RunningLoop.isOnMainActor } }
    }

    @Test func cancelFromAnotherThreadStopsTheTaskAtOnceAndTheLoopReleasesItsBodyOnTheMainActor() async {
        let loop = TestLoop()
        let released = _Locked<Bool?>(nil)
        let task: ScheduledTask
        do {
            let captured = Captured(released)
            task = loop.schedule(after: .seconds(1)) { _ = captured }
        }
        await onAnotherThread {
            task.cancel()
            #expect(task.isCancelled && !task.isScheduled, "cancelled as soon as cancel() returns, on any thread")
        }
        // Any main-actor loop that looks at its timers finishes the cancellation (tests running alongside may do it
        // first); this one looks now at the latest.
        #expect(loop.scheduledTimerCount == 0, "the loop learns of the cancellation the next time it looks")
        #expect(
            released.withLock { $0 } == true,
            "the body was released on the main actor, never on the canceller's thread"
        )
        await loop.advance(by: .seconds(2))
        #expect(task.firings == 0)
    }

    @Test func aTaskThatOutlivesItsLoopHasLeftTheLoopsTimersAndCancelsWithoutReachingThem() {
        var loop: TestLoop? = TestLoop()
        let task = loop!.schedule(after: .seconds(1)) {}
        weak let timers = loop!.core.timers
        loop = nil
        #expect(timers == nil, "the loop's timers went with it")
        // The task's reference to the timers is unowned: it may only be read while the task is in their heap.
        #expect(!task.isInHeap && task.queue == nil, "the timers told the task it left them before they went")
        task.cancel()
        #expect(task.isCancelled)
    }

    @Test func cancelOnTheMainActorReleasesTheBodyAtOnce() {
        let loop = TestLoop()
        let released = _Locked<Bool?>(nil)
        let task: ScheduledTask
        do {
            let captured = Captured(released)
            task = loop.schedule(after: .seconds(1)) { _ = captured }
        }
        task.cancel()
        #expect(released.withLock { $0 } == true)
    }

    @Test func manyCancellationsFromAnotherThreadKeepTheTimerCountExactAndAreCompactedAway() async {
        let loop = TestLoop()
        let tasks = (0..<1_000).map { index in loop.schedule(after: .seconds(Int64(index + 1))) {} }
        let toCancel = Array(tasks.dropLast())
        await onAnotherThread {
            for task in toCancel { task.cancel() }
        }
        // The loop touches the heap meanwhile: a dead entry dropped from the top must not be counted twice.
        await loop.advance(by: .milliseconds(1_500))
        #expect(loop.scheduledTimerCount == 1)
        #expect(loop.nextDeadline == .zero + .seconds(1_000))
        await loop.advance(by: .seconds(1_000))
        #expect(tasks.last?.firings == 1)
        #expect(tasks.dropLast().allSatisfy { $0.firings == 0 && $0.isCancelled })
    }

    @Test func aRepeatingTaskCancelledFromAnotherThreadBetweenFiringsNeverFiresAgain() async {
        let loop = TestLoop()
        let task = loop.scheduleRepeating(every: .seconds(1)) { _ in }
        await loop.advance(by: .seconds(3))
        #expect(task.firings == 3)
        await onAnotherThread { task.cancel() }
        await loop.advance(by: .seconds(3))
        #expect(task.firings == 3)
        #expect(task.isCancelled)
        #expect(loop.scheduledTimerCount == 0)
    }
}
