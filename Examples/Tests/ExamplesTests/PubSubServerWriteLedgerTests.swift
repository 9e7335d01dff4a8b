import Foundation
import MainlineTesting
import Testing

@testable import pubsub_server

/// pubsub-server's write ledger on a `TestLoop` whose queue holds one post (`LoopBudgets(maxPendingPosts: 1)`): the
/// report of a write completion that the full loop refuses is posted again, and loses no bytes, so a paused client's
/// in-flight count still comes down and the client resumes. The retries the ledger asks for are run by the test.
@MainActor
@Suite("Example: pubsub-server's write ledger")
struct PubSubServerWriteLedgerTests {
    /// The retries a ledger asked for, in order; the test runs them by hand. Thread-safe (protected by `lock`).
    final class Retries: @unchecked Sendable {
        private let lock = NSLock()
        private var attempts: [(delay: Duration, attempt: @Sendable () -> Void)] = []

        /// The ledger's `retry`.
        func add(after delay: Duration, _ attempt: @escaping @Sendable () -> Void) {
            lock.withLock { attempts.append((delay, attempt)) }
        }

        private var next = 0

        /// The delays asked for so far.
        var delays: [Duration] { lock.withLock { attempts.map(\.delay) } }

        /// Runs the oldest retry not yet run; `false` when there is none.
        func runNext() -> Bool {
            let attempt = lock.withLock { () -> (@Sendable () -> Void)? in
                guard next < attempts.count else { return nil }
                next += 1
                return attempts[next - 1].attempt
            }
            attempt?()
            return attempt != nil
        }
    }

    /// What the connection counted: the bytes each report took.
    @MainActor
    final class Connection {
        var ledger: WriteLedger?
        var reports: [Int] = []
    }

    @Test func aCompletionTheFullLoopRefusedIsPostedAgainUntilAcceptedAndLosesNoBytes() {
        let loop = TestLoop(budgets: .init(maxPendingPosts: 1))
        let retries = Retries()
        let connection = Connection()
        let ledger = WriteLedger(loop: loop, retry: retries.add) {
            connection.reports.append(connection.ledger!.take())
        }
        connection.ledger = ledger

        // The loop holds one post: full. The completion's report is refused, and a retry is asked for.
        #expect(loop.post {})
        ledger.record(1_000)
        #expect(retries.delays == [WriteLedger.firstRetryDelay], "a refused report must be posted again")
        // A completion while the report waits adds its bytes and posts nothing more.
        ledger.record(500)
        #expect(retries.delays == [WriteLedger.firstRetryDelay])
        loop.runUntilIdle()
        #expect(connection.reports == [], "the report was refused: nothing was counted yet")

        // Still full when the retry comes: refused again, retried after twice as long.
        #expect(loop.post {})
        #expect(retries.runNext())
        #expect(retries.delays == [WriteLedger.firstRetryDelay, WriteLedger.firstRetryDelay * 2])
        loop.runUntilIdle()
        #expect(connection.reports == [])

        // Room now: the retry is accepted, and the report takes every byte recorded.
        #expect(retries.runNext())
        loop.runUntilIdle()
        #expect(connection.reports == [1_500], "every completed byte is counted, once")
        #expect(retries.delays.count == 2, "an accepted report asks for no retry")

        // The next completion reports again, and is accepted at once.
        ledger.record(200)
        loop.runUntilIdle()
        #expect(connection.reports == [1_500, 200])
        #expect(retries.delays.count == 2)
        #expect(!loop.hasPendingWork)
    }
}
