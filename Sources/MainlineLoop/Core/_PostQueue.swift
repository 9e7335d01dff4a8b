/// The queue behind `post`: any thread enqueues, the loop takes everything in one swap.
///
/// All operations on `_PostQueue` are thread-safe.
///
/// Producers append under `lock` and wake the loop only on the empty → non-empty transition, so a flood costs
/// one wake-up per batch the loop takes, not one per post. The loop swaps the whole array out under the lock
/// (keeping both arrays' capacity: no allocation in steady state) and runs it outside the lock. Because the
/// loop empties `incoming` on every take, the next post after a take always wakes: no wake-up is lost.
///
/// With a limit on pending posts (``LoopBudgets/maxPendingPosts``) a post that would exceed it is refused
/// (``EnqueueResult/full``) and counted; see `_PostBound`.
package final class _PostQueue: @unchecked Sendable {
    // @unchecked Sendable: `incoming`, `isClosed`, `bound`, `drainDeadline` and `waker` are protected by `lock`.
    package typealias Job = @MainActor @Sendable () -> Void

    /// A job as the arrays hold it.
    ///
    /// Wrapping the closure in a struct keeps it at its concrete abstraction level. A bare `Job?` element is stored
    /// at the generic one, which costs a reabstraction-thunk context — one `malloc` on every append and a `free`
    /// on every take, two thirds of the post path's CPU when measured. With the wrapper a post allocates nothing
    /// once the arrays have grown.
    package struct Slot {
        /// The job; `nil` once it has been taken to run.
        package var job: Job?

        @inline(__always)
        init(_ job: @escaping Job) { self.job = job }
    }

    /// Until when the loop keeps running posted work once the queue is closed.
    package enum DrainDeadline: Sendable {
        /// Until this instant on the loop's clock.
        case at(LoopInstant)
        /// For this long after the loop begins to shut down (for virtual time, which no other thread can read).
        case afterShutdownBegins(Duration)
    }

    /// What `enqueue` did.
    package enum EnqueueResult {
        /// The queue is closed: the job was not taken.
        case closed
        /// The limit on pending posts is reached: the job was not taken (and was counted as rejected).
        case full
        /// The job was queued and the loop will be woken as needed.
        case enqueued
        /// The job was queued, and no waker is installed yet: the caller must start the loop.
        case enqueuedWithoutWaker
    }

    private let lock = _Lock()
    private var incoming = ContiguousArray<Slot>()
    private var isClosed = false
    private var bound: _PostBound
    private var drainDeadline: DrainDeadline?
    private var waker: (@Sendable () -> Void)?

    /// Creates an open queue.
    ///
    /// - Parameter limit: At most this many posts pending at once; `nil` for no limit.
    package init(limit: Int? = nil) {
        bound = _PostBound(limit: limit)
    }

    /// Appends `job` unless the queue is closed. Never blocks beyond the short critical section.
    @inline(__always)
    package func enqueue(_ job: @escaping Job) -> EnqueueResult {
        lock.lock()
        defer { lock.unlock() }
        if isClosed { return .closed }
        guard bound.admits(incoming: incoming.count) else { return .full }
        incoming.append(Slot(job))
        guard incoming.count == 1 else { return .enqueued }
        // The waker runs under the lock so that it can never race with `setWaker(nil)`: once the loop has
        // removed its waker (and is about to free what the waker touches), no producer can still be calling it.
        guard let waker else { return .enqueuedWithoutWaker }
        waker()
        return .enqueued
    }

    /// Installs (or, with `nil`, removes) what wakes the loop. Wakes at once when jobs are already waiting.
    package func setWaker(_ newWaker: (@Sendable () -> Void)?) {
        lock.withLock {
            waker = newWaker
            if let newWaker, !incoming.isEmpty { newWaker() }
        }
    }

    /// Wakes the loop for work that is not a post (an idle body registered from another thread). Returns `false`
    /// when no waker is installed yet: the caller must start the loop.
    package func wake() -> Bool {
        lock.withLock {
            guard let waker else { return false }
            waker()
            return true
        }
    }

    /// Stops accepting jobs and wakes the loop so that it notices. Returns `false` if it was already closed.
    ///
    /// - Parameter drainDeadline: When the loop stops running what was posted before the close and releases the
    ///   rest unrun; `nil` runs everything. Ignored when the queue was already closed.
    @discardableResult
    package func close(drainDeadline: DrainDeadline? = nil) -> Bool {
        lock.withLock {
            guard !isClosed else { return false }
            isClosed = true
            self.drainDeadline = drainDeadline
            waker?()
            return true
        }
    }

    /// The deadline given to ``close(drainDeadline:)``, if any.
    package var closingDeadline: DrainDeadline? { lock.withLock { drainDeadline } }

    /// Changes the limit on pending posts (`nil`: none). Posts already accepted stay accepted.
    package func setLimit(_ limit: Int?) {
        lock.withLock {
            bound.limit = limit
            if limit == nil { bound.taken = 0 }
        }
    }

    /// Whether a limit is set, so that the loop must report what its batch still holds (``loopHolds(_:)``).
    package var isBounded: Bool { lock.withLock { bound.isTracking } }

    /// The loop still holds `count` taken jobs that have not run. Called after a post phase, with a limit only.
    package func loopHolds(_ count: Int) {
        lock.withLock { bound.taken = count }
    }

    /// Posts refused so far because the limit was reached.
    package var rejectedCount: Int { lock.withLock { bound.rejected } }
    /// Whether ``close()`` was called.
    package var closed: Bool { lock.withLock { isClosed } }

    /// How many jobs are waiting to be taken.
    package var incomingCount: Int { lock.withLock { incoming.count } }

    /// Whether jobs are waiting to be taken.
    package var hasIncoming: Bool { lock.withLock { !incoming.isEmpty } }

    /// Swaps every waiting job into `batch`, which must be empty; `batch`'s old storage is kept for reuse.
    package func takeAll(into batch: inout ContiguousArray<Slot>) {
        precondition(batch.isEmpty, "BUG DETECTED: the post batch must be empty before the next take")
        lock.withLock {
            swap(&incoming, &batch)
            if bound.isTracking { bound.taken = batch.count }
        }
    }
}
