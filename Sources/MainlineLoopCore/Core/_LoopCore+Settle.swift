/// The core's settle phase (DESIGN.md §2–3, phase 3): requests on the main actor, requests from any thread through the
/// settle inbox (no posted job), and the phase that delivers them.
///
/// `requestSettle(fromAnyThread:)` is thread-safe; everything else must be used on the main actor, like the core.
extension _LoopCore {
    package func requestSettle(_ notification: SettleNotification) -> Bool {
        guard !isShutDown else { return false }
        instruments?.triggers += 1
        let wasIdle = !settleQueue.hasPending
        guard settleQueue.request(notification) else { return false }
        if wasIdle { needsAttention?() }
        return true
    }

    /// Asks for `request` to be settled, from any thread: pushes it on the settle inbox (one compare-and-swap) and
    /// wakes the loop if it sleeps — no posted job. The loop resolves it in the settle phase of the iteration that
    /// sees it: this one's, when the loop is running. Thread-safe.
    ///
    /// - Returns: `.enqueued`; `.enqueuedWithoutWaker` when the loop has not started (the caller starts it, as for a
    ///   post); `.closed` once the core has shut down (the request is dropped).
    package nonisolated func requestSettle(fromAnyThread request: any SettleRequest) -> _JobQueue.EnqueueResult {
        guard settleInbox.push(request) else { return .closed }
        // After the push (sequentially consistent, as the loop's setting of the bit before it looks at the inbox):
        // either the loop sees the request before it blocks, or this sees that it sleeps and wakes it.
        return posts.wakeIfSleeping()
    }

    /// Moves the requests made from other threads into the settle queue, in the order they were made.
    @inline(__always)
    func absorbSettleInbox() {
        guard settleInbox.hasRequests else { return }
        absorb(settleInbox.takeAll())
    }

    /// Resolves `requests` and requests settle with what they answer; counts them as taken.
    func absorb(_ requests: [any SettleRequest]) {
        settleRequestsTaken &+= requests.count
        for request in requests {
            guard let notification = request.notificationToSettle() else { continue }
            _ = requestSettle(notification)
        }
    }

    /// Phase 3: delivers pending settle notifications, at most one budget of rounds. Returns the rounds run.
    @discardableResult
    package func runSettle() -> Int {
        let probe = scheduler.probe
        var run = probe.begin(.settle)
        absorbSettleInbox()
        let rounds = _RunningLoop.with(owner) {
            settleQueue.settle(
                rounds: budgets.settleRoundsPerIteration,
                run: &run,
                probe: probe,
                order: scheduler.order
            )
        }
        probe.end(&run, count: rounds)
        return rounds
    }
}
