import MainlineLoop
import MainlineTesting
import Testing

@testable import MainlineEvents

/// `.suspend` on a `Loop` of the user's own: one rule on every loop — the mailbox learns that its loop stopped
/// through `Loop.onShutdown(_:)`, and a loop that cannot say so is reported at the mailbox's `init`.
@MainActor
@Suite("BoundedMailbox on a Loop of your own", .timeLimit(.minutes(3)))
struct BoundedMailboxLoopOfYourOwnTests {
    @Test func onALoopThatForwardsShutdownHooksStoppingEndsAWaitingSendWithLoopStopped() async throws {
        let loop = LoopForwardingShutdownHooks(TestLoop())
        let diagnostics = DiagnosticsRecorder()
        let mailbox = diagnostics.record { BoundedMailbox<Int>(capacity: 1, overflow: .suspend, loop: loop) }
        #expect(diagnostics.kinds.isEmpty)
        let waiting = WaitingSenders()
        mailbox.store.withLock { storage, _ in storage.waiters.didStartWaiting = waiting.didStartWaiting }
        #expect(mailbox.place(0))
        let sender = Task.detached { try await mailbox.send(1) }
        await waiting.until(1)
        loop.stop()
        await loop.inner.runUntilIdle()
        await #expect(throws: LoopStopped.self) { try await sender.value }
        #expect(mailbox.counts == MailboxCounts(accepted: 1, rejected: 1))
    }

    @Test func onALoopWithoutShutdownHooksASuspendMailboxIsReportedAtInit() {
        let loop = LoopWithoutShutdownHooks(TestLoop())
        let diagnostics = DiagnosticsRecorder()
        let mailbox = diagnostics.record { BoundedMailbox<Int>(capacity: 1, overflow: .suspend, loop: loop) }
        #expect(diagnostics.kinds == [.loopWithoutShutdownHooks])
        #expect(diagnostics.diagnostics.first?.message.contains("LoopWithoutShutdownHooks") == true)
        // Carrying on, the mailbox works; only the end of a wait at shutdown is missing.
        #expect(mailbox.place(0))
        #expect(!mailbox.place(1))
        #expect(mailbox.takeAll() == [0])
    }

    @Test func onALoopWithoutShutdownHooksTheOtherPoliciesReportNothing() {
        let loop = LoopWithoutShutdownHooks(TestLoop())
        let diagnostics = DiagnosticsRecorder()
        _ = diagnostics.record { BoundedMailbox<Int>(capacity: 1, overflow: .reject, loop: loop, name: "jobs") }
        #expect(diagnostics.kinds.isEmpty, "a name is ignored by a loop without metrics, silently")
    }
}
