import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// The `Loop.whenIdle(_:)` default, for conformers outside the package: the body is posted, and stays cancellable.
@MainActor
@Suite("Loop.whenIdle default")
struct LoopWhenIdleDefaultTests {
    @Test func theDefaultPostsTheBodyOnceAndCancelWithdrawsIt() {
        let loop = ExternalLoop()
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
        let loop = ExternalLoop(accepts: false)
        #expect(!loop.whenIdle {}.isActive)
    }
}
