import CMainlineShims
import MainlineLoop
import MainlineTesting
import Testing

@testable import MainlineEvents

/// A test that steps its `TestLoop` with `await loop.runUntilIdle()` while producer tasks `send` into a `.suspend`
/// mailbox: the producers keep the loop busy for as many iterations as they like, and that is work from other threads,
/// not a loop that retriggers itself — nothing may be reported as `.loopNeverIdle` (a user's test trapped on it).
@MainActor
@Suite("BoundedMailbox.send stepped with runUntilIdle", .timeLimit(.minutes(3)))
struct BoundedMailboxSteppedSendersTests {
    /// As the user wrote it: `await loop.runUntilIdle()`, with its default bound, until everything arrived. (Whether
    /// producers outlast one call's bound is a race, so this scenario alone does not fail on every run with the old
    /// rule; `TestLoopSteppingRuleTests` pins the rule down deterministically.)
    @Test func fourTasksSendingIntoEightSlotsNeverMakeRunUntilIdleReportTheLoop() async throws {
        let perProducer = mainline_is_thread_sanitized() != 0 ? 2_500 : 10_000
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 8, overflow: .suspend, loop: loop)
        let order = OrderCheck()
        var token: SimpleEventToken?
        mailbox.event.addObserver(&token) { _ in
            for value in mailbox.takeAll() { order.receive(producer: value >> 32, sequence: value & 0xFFFF_FFFF) }
        }
        let producers = (0..<4).map { producer in
            Task.detached {
                for sequence in 0..<perProducer { try await mailbox.send(producer << 32 | sequence) }
            }
        }
        let diagnostics = DiagnosticsRecorder()
        var steps = 0
        await diagnostics.record {
            // As the user wrote it: step until everything arrived. Each call returns once it has run its bound, with
            // the producers' work still due, and reports nothing. At the time limit (a broken mailbox), stop.
            while order.received < 4 * perProducer && !Task.isCancelled {
                await loop.runUntilIdle()
                steps += 1
            }
        }
        for producer in producers { try await producer.value }
        await loop.runUntilIdle()
        #expect(diagnostics.kinds.isEmpty, "\(diagnostics.diagnostics.map(\.message))")
        #expect(order.received == 4 * perProducer)
        #expect(order.violations == 0)
        #expect(order.lastReceived == Array(repeating: perProducer - 1, count: 4))
        #expect(mailbox.counts == MailboxCounts(accepted: 4 * perProducer, delivered: 4 * perProducer))
        #expect(steps >= 1)
        _ = token
    }
}
