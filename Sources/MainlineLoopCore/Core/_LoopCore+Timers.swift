/// The core's main-actor timers: scheduling (DESIGN.md §2, phase 1) and the timer phase, whose order is the
/// scheduler's (`_LoopScheduler.runTimers`).
///
/// Must be used on the main actor, like the core. Cancellation from another thread goes through `_TimerCancellations`.
extension _LoopCore {
    package func schedule(
        after delay: Duration,
        now: LoopInstant,
        site: LoopSite,
        _ body: @escaping @MainActor () -> Void
    )
        -> ScheduledTask
    {
        schedule(at: now + max(delay, .zero), site: site, body)
    }

    /// Schedules `body` once at `deadline`; a deadline in the past fires in the next timer phase (never in the one
    /// running: see ``runDueTimers(now:)``).
    package func schedule(
        at deadline: LoopInstant,
        site: LoopSite,
        _ body: @escaping @MainActor () -> Void
    ) -> ScheduledTask {
        let body = serviceContext.carry(timer: body)
        return insert(ScheduledTask(deadline: deadline, interval: nil, site: site, body: .once(body)))
    }

    package func scheduleRepeating(
        every interval: Duration,
        now: LoopInstant,
        site: LoopSite,
        _ body: @escaping @MainActor (ScheduledTask) -> Void
    ) -> ScheduledTask {
        let interval = _validRepeatingInterval(interval, caller: "scheduleRepeating")
        let body = serviceContext.carry(repeating: body)
        return insert(ScheduledTask(deadline: now + interval, interval: interval, site: site, body: .repeating(body)))
    }

    package func insert(_ task: ScheduledTask) -> ScheduledTask {
        guard !isShutDown else {
            task.cancel0()
            return task
        }
        timersArmed &+= 1
        if timers.insert(task) { needsAttention?() }
        return task
    }

    /// Phase 1: fires the timers due at `now` that were scheduled before the phase began, in deadline order
    /// (ties in scheduling order). Returns how many fired.
    @discardableResult
    package func runDueTimers(now: LoopInstant) -> Int {
        _RunningLoop.with(owner) { fireDueTimers(now: now) }
    }

    func fireDueTimers(now: LoopInstant) -> Int {
        // Cancellations made off the loop since the last look: their bodies are released here, before any fires.
        _TimerCancellations.absorb()
        if let order = scheduler.order { return fireDueTimers(in: order, now: now) }
        // Read once, into a register: the uninstrumented path tests a local per timer, not a stored property.
        let instruments = self.instruments
        // Main-actor timers (`_TimerQueue`, no lock: they are scheduled on the main actor only) where an `EventLoop`
        // has thread-safe ones; the phase itself is the scheduler's.
        return scheduler.runTimers(
            sequenceMark: timers.sequenceMark,
            popDue: { mark in
                while let task = timers.popDue(now: now, scheduledBefore: mark) {
                    // Cancelled on another thread after the absorb above: it lost, its body never starts. The next
                    // absorb releases the body (the task is no longer in the heap, so nothing else changes).
                    if task.commitFiring() { return task }
                }
                return nil
            },
            site: { $0.site },
            fire: { task in
                instruments?.timerFired(lateBy: (now - task.deadline).mainlineNanoseconds)
                fire(task, now: now)
            }
        )
    }

    package func fire(_ task: ScheduledTask, now: LoopInstant) {
        task.firings += 1
        guard let body = task.body else {
            preconditionFailure("BUG DETECTED: a scheduled timer has no body (state \(task.stateDescription))")
        }
        fire(task, body, now: now)
    }

    package func fire(_ task: ScheduledTask, _ body: ScheduledTask.Body, now: LoopInstant) {
        switch body {
        case .once(let body):
            task.body = nil  // `commitFiring()` already made the task `fired`
            body()
        case .repeating(let body):
            // Re-insert before running, so that `cancel()` from inside the body finds the task scheduled.
            let (next, skipped) = _nextFixedRateDeadline(
                after: task.deadline.nanoseconds,
                interval: task.interval!.mainlineNanoseconds,
                now: now.nanoseconds
            )
            task.skippedFirings += skipped
            task.deadline = LoopInstant(nanoseconds: next)
            _ = timers.insert(task)  // inside the timer phase: the driver re-arms after the phase anyway
            body(task)
        }
    }
}
