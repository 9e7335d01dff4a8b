import Testing

@testable import MainlineLoop

/// The `Loop.whenIdle(_:)` default, for conformers outside the package: the body is posted, and stays cancellable.
@MainActor
@Suite("Loop.whenIdle default")
struct LoopWhenIdleDefaultTests {
    /// A loop that only queues posts, run by hand; `accepts` false refuses them as a stopped loop does.
    @MainActor final class Manual: Loop {
        nonisolated let queue = _Locked<[@MainActor @Sendable () -> Void]>([])
        nonisolated let accepts: Bool
        nonisolated init(accepts: Bool = true) { self.accepts = accepts }
        nonisolated func post(_ body: @escaping @MainActor @Sendable () -> Void) -> Bool {
            guard accepts else { return false }
            queue.withLock { $0.append(body) }
            return true
        }
        nonisolated func stop() {}
        var now: LoopInstant { .zero }
        var budgets = LoopBudgets.default
        func schedule(after delay: Duration, _ body: @escaping @MainActor () -> Void) -> ScheduledTask {
            fatalError("unused")
        }
        func scheduleRepeating(
            every interval: Duration,
            _ body: @escaping @MainActor (ScheduledTask) -> Void
        ) -> ScheduledTask {
            fatalError("unused")
        }
        func requestSettle(_ notification: SettleNotification) -> Bool { false }
        func onSignal(
            _ signal: LoopSignal,
            _ handler: @escaping @MainActor (LoopSignal) -> Void
        ) -> SignalRegistration {
            fatalError("unused")
        }
        @MainActor func runPosts() {
            let bodies = queue.withLock { queue in
                defer { queue = [] }
                return queue
            }
            for body in bodies { body() }
        }
    }

    @Test func theDefaultPostsTheBodyOnceAndCancelWithdrawsIt() {
        let loop = Manual()
        var ran: [String] = []
        let kept = loop.whenIdle { ran.append("kept") }
        let cancelled = loop.whenIdle { ran.append("cancelled") }
        #expect(loop.queue.withLock { $0.count } == 2)
        cancelled.cancel()
        loop.runPosts()
        #expect(ran == ["kept"])
        #expect(!kept.isActive)
        #expect(!cancelled.isActive)
    }

    @Test func aRefusedPostHandsBackASpentRegistration() {
        let loop = Manual(accepts: false)
        #expect(!loop.whenIdle {}.isActive)
    }
}
