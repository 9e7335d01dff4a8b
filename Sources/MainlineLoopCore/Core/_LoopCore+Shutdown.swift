import Glibc
import Logging

/// The end of a main-actor loop's core: shutdown hooks, and the shutdown that drains what was posted (under the
/// scheduler's one drain-deadline rule), settles, runs the hooks and cancels what is left.
///
/// Must be used on the main actor, like the core.
extension _LoopCore {
    /// Registers `body` to run during shutdown, after posted work and settle (see ``ShutdownRegistration``).
    package func onShutdown(_ body: @escaping @MainActor () -> Void) -> ShutdownRegistration {
        let registration = ShutdownRegistration(body)
        if isShutDown {
            registration.cancel()
        } else {
            shutdownHooks.removeAll { !$0.isActive }
            shutdownHooks.append(registration)
        }
        return registration
    }

    /// Ends the core's life: runs every job already posted (the post queue must be closed), settles, runs the
    /// shutdown hooks and settles what they triggered, then cancels timers and signal handlers and removes the
    /// instrumentation (its last totals reported, its watchdog stopped). Afterwards requests are refused. Returns how
    /// many posted jobs ran.
    @discardableResult
    package func shutDown() -> Int {
        _RunningLoop.with(owner) { finalShutDown() }
    }

    func finalShutDown() -> Int {
        guard !isShutDown else { return 0 }
        scheduler.probe.stopping()
        precondition(posts.closed, "BUG DETECTED: shutDown() needs the post queue closed first")
        // The loop will not be idle again: pending idle bodies are released unrun (see `Loop.whenIdle(_:fileID:line:)`).
        idle.close()
        let ran = drainPosts()
        absorbSettleInbox()
        settleQueue.settle(rounds: budgets.settleRoundsPerIteration)
        runShutdownHooks()
        // Requests from other threads are refused from here on; what arrived before is settled with the hooks' work.
        absorb(settleInbox.close())
        isShutDown = true
        settleQueue.settle(rounds: budgets.settleRoundsPerIteration)
        let discarded = settleQueue.removeAll()
        if discarded > 0 {
            Self.logger.warning(
                "Loop shut down with settle notifications still pending after the round budget; discarded them",
                metadata: ["count": "\(discarded)"]
            )
        }
        timers.cancelAll()
        signals.removeAll()
        endIteration()
        instruments?.watchdog?.stop()
        instruments = nil
        scheduler.probe.monitor = nil
        scheduler.probe.measuresBusy = false
        dropSources = []
        return ran
    }

    /// Runs every job posted before the queue closed — with a drain deadline, only those that start before it: the
    /// scheduler's one rule releases the rest unrun and reports them. Returns how many ran.
    func drainPosts() -> Int {
        var ran = 0
        // Until every accepted post has run or was released (a phase stops early at a post still being written).
        while posts.pendingOnLoop > 0 {
            let count = runPosts(limit: .max, phase: .drainingPosts)
            ran += count
            if count == 0 { sched_yield() }
        }
        return ran
    }

    func runShutdownHooks() {
        let probe = scheduler.probe
        let hooks = shutdownHooks
        shutdownHooks = []
        for hook in hooks {
            guard let body = hook.body else { continue }
            hook.body = nil
            var run = probe.begin(.shutdownHook)
            probe.willRun(&run, site: nil)
            body()
            probe.end(&run, count: 1)
        }
    }
}
