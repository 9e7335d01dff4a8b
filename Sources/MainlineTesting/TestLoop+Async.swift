import Dispatch
import MainlineLoopCore

// Virtual time for async code: the `async` forms of stepping. The mechanism and its limits are explained in the
// DocC article "Virtual time for async code" (VirtualTimeForAsyncCode.md).
extension TestLoop {
    /// Runs the loop at the current time until nothing is left to do now — and waits for the tasks the loop woke to
    /// run until they wait on the loop again.
    ///
    /// Use it from an `async` test. Between steps it lets the main actor run, round after round, until a round in
    /// which no woken task did anything the loop can see (a post, a timer or clock sleep, an event) and nothing is due
    /// now: so a task that was woken by a post, an event or a clock sleep has run on to its next wait on this loop
    /// (or finished) before this returns. Virtual time does not move.
    ///
    /// ```swift
    /// model.resume()                       // launches work in its resumed scope
    /// await loop.runUntilIdle()            // the work ran up to its first sleep on loop.clock
    /// ```
    ///
    /// Tasks that wait on something other than this loop — another actor's long work, a real socket, a real-time
    /// `Task.sleep` — are not waited for; see <doc:VirtualTimeForAsyncCode> for what escapes virtual time and how to
    /// notice.
    ///
    /// - Parameter maxIterations: The most loop iterations each round runs, and the most main-actor rounds the call
    ///   lets tasks run, as in the synchronous `runUntilIdle(maxIterations:)`. Tasks and threads that keep giving the
    ///   loop work (producers still producing) simply end the call at the bound, with their work still due; only a loop
    ///   whose own callbacks keep it busy for every iteration of a round is reported to `Diagnostics` as
    ///   `.loopNeverIdle` (see the synchronous form).
    /// - Returns: How many loop iterations ran.
    @discardableResult
    public func runUntilIdle(maxIterations: Int = 10_000) async -> Int {
        await runUntilQuiet(maxIterations: maxIterations, caller: "runUntilIdle()").iterations
    }

    /// The async `runUntilIdle(maxIterations:)`, telling its caller whether the loop kept itself busy (reported), so
    /// that `advance` stops there instead of stepping a livelock forever.
    private func runUntilQuiet(maxIterations: Int, caller: StaticString) async -> Steps {
        // While this steps, it takes the jobs held for an exploration run's tasks; the lane's pump waits.
        let lane = order?.schedule.lane
        lane?.stepping(true)
        defer { lane?.stepping(false) }
        var iterations = 0
        var rounds = 0
        var quietRounds = 0
        // Two quiet rounds: a woken task may hand its continuation on once more through the main queue (a hop back
        // from a `nonisolated` function, a `Task` it started) before it reaches the loop.
        while quietRounds < 2 && rounds < maxIterations {
            let steps = runIterationsWhileBusy(upTo: maxIterations, caller: caller)
            iterations += steps.iterations
            if steps.keptBusyByItself { return Steps(iterations: iterations, keptBusyByItself: true) }
            rounds += 1
            let armed = core.timersArmed
            let ranHeldJob = runHeldTaskJob()
            await Self.mainActorRound()
            if ranHeldJob || hasWorkDueNow || core.timersArmed != armed || _VirtualTimeTasks.hasPendingJobs
                || order?.schedule.lane.hasHeldJobs == true
            {
                quietRounds = 0
            } else {
                quietRounds += 1
            }
        }
        return Steps(iterations: iterations, keptBusyByItself: false)
    }

    /// Moves virtual time forward by `duration`, running everything that becomes due on the way — and, at every
    /// deadline, waiting for the tasks it woke to run until they wait on the loop again.
    ///
    /// A task sleeping on ``clock`` in a loop (`while true { try await Task.sleep(for: .seconds(1), clock: loop.clock) }`)
    /// runs once per second of the span, at exactly the virtual times it asked for, and ``now`` reads each deadline
    /// while it runs. See `runUntilIdle(maxIterations:)` (async) for what is waited for.
    ///
    /// - Parameter duration: How far to move; a negative duration is misuse (see `advance(to:)`).
    public func advance(by duration: Duration) async {
        await advance(to: now + duration)
    }

    /// Moves virtual time forward to `instant`, running everything that becomes due on the way and waiting, at every
    /// deadline, for the tasks it woke (see `advance(by:)`, async).
    ///
    /// When the loop's own callbacks keep it busy at some deadline (reported to `Diagnostics` as `.loopNeverIdle`, see
    /// `runUntilIdle(maxIterations:)`), the call stops there, with ``now`` at that deadline.
    ///
    /// - Parameter instant: The target time. An instant before ``now`` is reported to `Diagnostics` as
    ///   `.timeTravel`, and time stays where it is (what is due now still runs).
    public func advance(to instant: LoopInstant) async {
        if instant < now {
            Diagnostics.report(
                .timeTravel,
                "TestLoop.advance(to: \(instant)) would move time backwards from \(now); virtual time only moves forward. Staying at \(now)."
            )
        }
        let caller: StaticString = "advance(to:)"
        let maxIterations = Self.iterationsPerAttempt
        guard await !runUntilQuiet(maxIterations: maxIterations, caller: caller).keptBusyByItself else { return }
        while let next = core.nextDeadline, next <= instant {
            moveTime(to: next)
            guard await !runUntilQuiet(maxIterations: maxIterations, caller: caller).keptBusyByItself else { return }
        }
        moveTime(to: instant)
    }

    /// During an exploration run, hands one job held for the run's tasks (`_TaskLane`) to the main queue — the one the
    /// schedule chooses — so that the round that follows runs it. Returns whether it handed one over.
    private func runHeldTaskJob() -> Bool {
        guard let job = order?.schedule.lane.take() else { return false }
        _VirtualTimeTasks.runOnMainQueue(job)
        return true
    }

    /// One round of the main actor's queue: returns once every job enqueued on the main actor before the call
    /// (and everything those jobs enqueued before the round's end came up) has run.
    ///
    /// On Linux the main actor's jobs and `DispatchQueue.main` share one FIFO, the main queue; the tasks a test loop
    /// took into virtual time have their global-executor jobs enqueued there too (`_VirtualTimeTasks`).
    private static func mainActorRound() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async { continuation.resume() }
        }
        await Task.yield()
    }
}
