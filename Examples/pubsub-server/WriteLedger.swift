import Foundation
import Mainline

/// The bytes of one client's writes that SwiftNIO has completed and its ``ClientConnection`` has not yet counted:
/// how write completions, on the channel's event loop, reach the connection's accounting on the main loop.
///
/// All operations on `WriteLedger` are thread-safe: ``record(_:)`` is called on the channel's event loop (from a write
/// promise), ``take()`` on the main actor, by the report the ledger posts.
///
/// Nothing recorded is lost, whatever becomes of a post:
/// - A completion adds its bytes here, under the lock, before anything is posted. The count lives in the ledger, not
///   in a posted closure, so a post the loop refuses loses no bytes: the next report takes them all.
/// - At most one report waits for the loop per connection. Completions that arrive while one waits add to the count
///   and post nothing, so a loop that fell behind gets one post per connection, not one per write (as a mailbox
///   wakes its consumer once).
/// - A report the loop refuses because it is full (`LoopBudgets.maxPendingPosts`) is posted again on the channel's
///   event loop, after ``firstRetryDelay``, then twice as long each time up to ``longestRetryDelay``, until the loop
///   accepts it: the loop is full because it has posts to run, so it will have room. Without this a paused client
///   whose last completion was refused would stay paused for ever: its in-flight bytes never shrink, so it never
///   resumes. A report refused because the loop has stopped is not retried: the server is gone.
///
/// Retrying on the channel's event loop is the one place that can: the completion runs there, and nothing on the
/// main loop would notice a refused post of a paused client that neither reads nor sends anything more.
///
/// A write that failed (the client went away) counts as completed, and also makes ``hasFailed`` true for good: a queue
/// group's `MSG` is acknowledged only once its write reached the kernel, so the connection must tell a write that
/// failed from one that did not (writes on one channel complete in order, and none succeeds after one failed).
final class WriteLedger: @unchecked Sendable {
    // @unchecked Sendable: `completed`, `failed` and `isReporting` are read and written only while `lock` is held; the
    // other stored properties are immutable and Sendable.
    private let lock = NSLock()
    /// Bytes whose writes completed since the last ``take()``. Protected by `lock`.
    private var completed = 0
    /// Whether any recorded write failed. Protected by `lock`.
    private var failed = false
    /// Whether a report is posted, or waiting to be posted again, and has not yet taken the count. Protected by
    /// `lock`.
    private var isReporting = false
    private let loop: any Loop
    private let retry: Retry
    private let report: @MainActor @Sendable () -> Void

    /// Runs `attempt` on the channel's event loop once `after` has passed: how a refused report is posted again.
    typealias Retry = @Sendable (_ after: Duration, _ attempt: @escaping @Sendable () -> Void) -> Void

    /// How long after a refusal a report is posted again the first time.
    static let firstRetryDelay = Duration.milliseconds(1)
    /// The longest wait between two attempts to post a report the loop refused.
    static let longestRetryDelay = Duration.milliseconds(64)

    /// An empty ledger.
    ///
    /// - Parameters:
    ///   - loop: The loop the connection lives on; reports are posted to it.
    ///   - retry: Runs an attempt to post a refused report again, after a delay, on the channel's event loop
    ///     (``ClientSocket/retry``; a test runs it by hand).
    ///   - report: Runs on `loop` after completions were recorded; it calls ``take()``.
    init(loop: any Loop, retry: @escaping Retry, report: @escaping @MainActor @Sendable () -> Void) {
        self.loop = loop
        self.retry = retry
        self.report = report
    }

    /// Records that a write of `count` bytes completed (whether it succeeded or failed: either way the bytes are no
    /// longer in flight), and posts a report unless one is already waiting. Call it on any thread.
    ///
    /// - Parameters:
    ///   - count: The bytes of the write.
    ///   - written: Whether they reached the kernel; `false` when the write failed, which ``hasFailed`` then says.
    func record(_ count: Int, written: Bool = true) {
        let mustReport = lock.withLock {
            completed += count
            if !written { failed = true }
            defer { isReporting = true }
            return !isReporting
        }
        if mustReport { postReport(retryingAfter: Self.firstRetryDelay) }
    }

    /// Takes the bytes recorded since the last take, and lets the next ``record(_:)`` post a report. Must be called on
    /// the main actor (by the report).
    @MainActor
    func take() -> Int {
        lock.withLock {
            defer {
                completed = 0
                isReporting = false
            }
            return completed
        }
    }

    /// Whether a recorded write failed: the client's connection is broken, and no later write of it reaches the client.
    /// Read it after ``take()``; it never becomes `false` again. Thread-safe.
    var hasFailed: Bool { lock.withLock { failed } }

    /// Posts the report; when the loop is full, tries again after `delay`, then after twice as long, up to
    /// ``longestRetryDelay``.
    private func postReport(retryingAfter delay: Duration) {
        guard loop.tryPost(report) == .full else { return }
        let next = min(delay * 2, Self.longestRetryDelay)
        retry(delay) { self.postReport(retryingAfter: next) }
    }
}
