import MainlineLoop
import MainlineTesting

/// A `Loop` as a conformer outside the package writes one: only the protocol's requirements without defaults, so the
/// tests see what the defaults (`snapshot()`, `whenIdle(_:)`, `tryPost(_:)`, …) give such a loop. It queues posts and
/// runs them when the test says (``runPosts()``); `accepts: false` refuses them, as a stopped loop does. Timers only
/// record the delay they were asked for (``scheduledDelays``) and live on a private `TestLoop` that never runs; settle
/// and signals are never used by these tests.
@MainActor final class ExternalLoop: Loop {
    nonisolated let queue = _Locked<[@MainActor @Sendable () -> Void]>([])
    nonisolated let accepts: Bool
    let now: LoopInstant
    var budgets = LoopBudgets.default
    /// The delays `schedule(after:from:_:)` was called with, in order.
    private(set) var scheduledDelays: [Duration] = []
    /// Holds the tasks `schedule(after:from:_:)` returns; never stepped.
    private let timers = TestLoop()

    nonisolated init(accepts: Bool = true, now: LoopInstant = .zero) {
        self.accepts = accepts
        self.now = now
    }

    /// One element per accepted post, so that a test can wait for posts from other threads.
    private nonisolated let posted = AsyncStream<Void>.makeStream()

    nonisolated func post(_ body: @escaping @MainActor @Sendable () -> Void, from site: LoopSite) -> Bool {
        guard accepts else { return false }
        queue.withLock { $0.append(body) }
        posted.continuation.yield()
        return true
    }

    /// Returns once `count` more posts have been accepted.
    func waitForPosts(_ count: Int) async {
        var iterator = posted.stream.makeAsyncIterator()
        for _ in 0..<count { _ = await iterator.next() }
    }

    nonisolated func stop() {}

    nonisolated var clock: LoopClock { LoopClock(loop: self, now: { [now] in now }) }

    func schedule(after delay: Duration, from site: LoopSite, _ body: @escaping @MainActor () -> Void) -> ScheduledTask
    {
        scheduledDelays.append(delay)
        return timers.schedule(after: delay, from: site, body)
    }

    func scheduleRepeating(
        every interval: Duration,
        from site: LoopSite,
        _ body: @escaping @MainActor (ScheduledTask) -> Void
    ) -> ScheduledTask {
        fatalError("ExternalLoop has no timers; these tests never schedule")
    }

    func requestSettle(_ notification: SettleNotification) -> Bool { false }

    func onSignal(
        _ signal: LoopSignal,
        _ handler: @escaping @MainActor (LoopSignal) -> Void
    ) -> SignalRegistration {
        fatalError("ExternalLoop has no signals; these tests never register one")
    }

    /// Runs every body posted so far, in order.
    func runPosts() {
        let bodies = queue.withLock { queue in
            defer { queue = [] }
            return queue
        }
        for body in bodies { body() }
    }
}
