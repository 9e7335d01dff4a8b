import MainlineLoopCore

// Stepping a test loop at the current time and through virtual time. Every stepping call — `runUntilIdle` (sync and
// async), `advance` (sync and async), `run(until:)` — runs iterations through `runIterationsWhileBusy(upTo:caller:)`,
// the one place that decides what a loop still busy at a bound means.
extension TestLoop {
    /// Runs one iteration at the current time: due timers, one budget of posted work, one budget of settle
    /// rounds, then — if that left no post waiting, nothing pending for settle and no timer due at ``now`` — the idle
    /// bodies registered before the idle phase began (see ``whenIdle(_:fileID:line:)``). After ``stop()``, the first step shuts
    /// the loop down instead, releasing pending idle bodies unrun.
    ///
    /// Call it on the main actor.
    public func runIteration() {
        if core.posts.closed && !core.isShutDown {
            core.shutDown()
            return
        }
        core.runDueTimers(now: now)
        core.runPosts()
        core.runSettle()
        core.runIdleIfNothingPending(now: now)
        core.endIteration()
    }

    /// Runs iterations at the current time until nothing is left to do now (timers in the future stay).
    ///
    /// Call it on the main actor.
    ///
    /// Work that keeps arriving from other threads or tasks (a producer thread posting, senders of a `.suspend`
    /// mailbox resumed as the consumer takes) is not misuse: after `maxIterations` iterations the call simply returns,
    /// with that work still due; step again, or use `run(until:attempts:)` to wait for a condition. Only a loop whose
    /// **own** callbacks keep it busy — a job that posts itself again, a settle notification that requests itself, a
    /// timer re-armed at ``now`` — on every one of `maxIterations` iterations is reported to `Diagnostics` as
    /// `.loopNeverIdle`.
    ///
    /// - Parameter maxIterations: The most iterations the call runs.
    /// - Returns: How many iterations ran.
    @discardableResult
    public func runUntilIdle(maxIterations: Int = 10_000) -> Int {
        runIterationsWhileBusy(upTo: maxIterations, caller: "runUntilIdle()").iterations
    }

    /// Steps the loop at the current time until `condition` holds, letting other tasks run between steps: for tests
    /// where work arrives from other threads or tasks (posts from a worker, a task consuming an `AsyncSequence`).
    ///
    /// Virtual time does not move. Each attempt runs the loop until idle or for 10,000 iterations, whichever comes
    /// first, checks `condition`, and yields. Producers on other threads may keep the loop busy for any number of
    /// iterations in a row, and that is not misuse. A loop whose own callbacks keep it busy for all 10,000 iterations of
    /// an attempt (something retriggers itself) is reported to `Diagnostics` as `.loopNeverIdle`, and the call returns.
    ///
    /// Call it on the main actor (the loop's isolation).
    ///
    /// - Parameters:
    ///   - attempts: How many rounds to try before giving up, so a broken test fails instead of hanging.
    ///   - condition: What the test waits for.
    /// - Returns: Whether `condition` held when the call returned.
    @discardableResult
    public func run(until condition: () -> Bool, attempts: Int = 100_000) async -> Bool {
        for _ in 0..<attempts {
            let step = runIterationsWhileBusy(upTo: Self.iterationsPerAttempt, caller: "run(until:)")
            if condition() { return true }
            if step.keptBusyByItself { return false }
            await Task.yield()
        }
        return condition()
    }

    /// How many iterations one attempt of `run(until:attempts:)` runs at most before it checks its condition and
    /// yields: the default bound of `runUntilIdle(maxIterations:)` (a literal there, as a public default argument
    /// cannot name an internal constant).
    static let iterationsPerAttempt = 10_000

    /// Moves virtual time forward by `duration`, running everything that becomes due on the way.
    ///
    /// Call it on the main actor.
    ///
    /// - Parameter duration: How far to move; a negative duration is misuse (see `advance(to:)`).
    public func advance(by duration: Duration) {
        advance(to: now + duration)
    }

    /// Moves virtual time forward to `instant`, running everything that becomes due on the way.
    ///
    /// First runs what is due now; then, timer by timer, sets ``now`` to the next deadline not after `instant`
    /// and runs until idle (each time as `runUntilIdle(maxIterations:)` does, with its rule for a loop that stays
    /// busy); finally leaves ``now`` at `instant`. When the loop's own callbacks keep it busy at some deadline (reported
    /// to `Diagnostics` as `.loopNeverIdle`), the call stops there, with ``now`` at that deadline. Call it on the main
    /// actor.
    ///
    /// - Parameter instant: The target time. An instant before ``now`` is reported to `Diagnostics` as
    ///   `.timeTravel`, and time stays where it is (what is due now still runs).
    public func advance(to instant: LoopInstant) {
        if instant < now {
            Diagnostics.report(
                .timeTravel,
                "TestLoop.advance(to: \(instant)) would move time backwards from \(now); virtual time only moves forward. Staying at \(now)."
            )
        }
        let caller: StaticString = "advance(to:)"
        guard !runIterationsWhileBusy(upTo: Self.iterationsPerAttempt, caller: caller).keptBusyByItself else { return }
        while let next = core.nextDeadline, next <= instant {
            moveTime(to: next)
            guard !runIterationsWhileBusy(upTo: Self.iterationsPerAttempt, caller: caller).keptBusyByItself else {
                return
            }
        }
        moveTime(to: instant)
    }

    /// What one run of ``runIterationsWhileBusy(upTo:caller:)`` did.
    struct Steps {
        /// How many iterations ran.
        var iterations: Int
        /// Whether the loop's own callbacks left work due now after every one of the `limit` iterations (reported).
        var keptBusyByItself: Bool
    }

    /// Runs iterations while work is due now, at most `limit` of them. The one rule every stepping call follows:
    ///
    /// - An iteration after which work is due now only because other threads or tasks placed it (posts from outside
    ///   the loop's callbacks, an idle body registered from outside) is ordinary: producers may outpace the consumer
    ///   for any number of iterations. Reaching `limit` that way just ends the call.
    /// - An iteration after which the loop's **own** callbacks left work due now — a post made by a callback, a settle
    ///   notification requested again faster than settle's round budget delivers, a timer due at ``now`` scheduled by a
    ///   callback — keeps itself busy. When every one of `limit` iterations did, something retriggers itself on every
    ///   iteration: that is reported to `Diagnostics` as `.loopNeverIdle`, naming `caller` and what was due.
    @discardableResult
    func runIterationsWhileBusy(upTo limit: Int, caller: StaticString) -> Steps {
        var iterations = 0
        var keptBusyByItself = 0
        var lastOwnWork: String?
        while hasWorkDueNow && iterations < limit {
            postsFromOwnCallbacks = 0
            runIteration()
            iterations += 1
            lastOwnWork = ownWorkDueNow
            keptBusyByItself = lastOwnWork == nil ? 0 : keptBusyByItself + 1
        }
        guard keptBusyByItself == limit, limit > 0, let lastOwnWork else {
            return Steps(iterations: iterations, keptBusyByItself: false)
        }
        Diagnostics.report(
            .loopNeverIdle,
            "TestLoop.\(caller) ran \(limit) iterations at \(now), and after every one the loop's own callbacks had left work due now (\(lastOwnWork)): something retriggers itself on every iteration."
        )
        return Steps(iterations: iterations, keptBusyByItself: true)
    }

    /// What the loop's own callbacks left due now, described; `nil` when nothing is, or only work from outside is.
    private var ownWorkDueNow: String? {
        if core.hasSettlePending { return "a settle notification requested again during settle" }
        if let next = core.nextDeadline, next <= now {
            return "a timer due at \(now), scheduled or re-armed by a callback"
        }
        if postsFromOwnCallbacks > 0 && (core.hasImmediateWork || core.posts.hasIncoming) {
            return "\(postsFromOwnCallbacks) posts made by the loop's own callbacks"
        }
        return nil
    }
}
