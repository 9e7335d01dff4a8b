/// The one queue behind every loop's `post`, and behind an `EventLoop`'s executor: any thread enqueues, the loop
/// takes everything in one swap.
///
/// All operations on `_JobQueue` are thread-safe.
///
/// Producers append under `lock` and wake the loop only on the empty → non-empty transition, so a flood costs one
/// wake-up per batch the loop takes, not one per post. The loop swaps the whole array out under the lock (keeping
/// both arrays' capacity: no allocation in steady state) and runs it outside the lock (`_JobBatch`). Because every take
/// empties `incoming`, the next post after a take always wakes: no wake-up is lost. The loop drains with a budget, so
/// it must arrange its *own* next post phase while anything is still waiting (`_UVEngine.requestPostPhase()`):
/// producers will not.
///
/// **Life**: `open` (posts and jobs accepted) → `draining` (after ``close(drainDeadline:)``: posts refused, executor
/// jobs still accepted so that tasks already running on an `EventLoop` can finish) → `closed` (nothing accepted; the
/// loop shuts down).
///
/// **The close race** has one answer: the waker runs under `lock`, and the loop removes it (``setWaker(_:)`` with
/// `nil`) before it frees what the waker touches. Once that call has returned, no producer can still be waking the loop.
///
/// With a limit on pending posts (``LoopBudgets/maxPendingPosts``) a post that would exceed it is refused
/// (``EnqueueResult/full``) and counted (see `_PostBound`); executor jobs are never refused for it — a task's job must
/// run.
package final class _JobQueue: @unchecked Sendable {
    // @unchecked Sendable: `incoming`, `state`, `bound`, `drainDeadline` and `waker` are protected by `lock`.

    /// A job as the queue holds it. A main-actor loop's jobs are main-actor closures with their isolation erased
    /// (``mainActorJob(_:)``): the loop runs them only on the main actor.
    package typealias Job = @Sendable () -> Void

    /// A job as the arrays hold it.
    ///
    /// Wrapping the closure in a struct keeps it at its concrete abstraction level. A bare `Job?` element is stored at
    /// the generic one, which costs a reabstraction-thunk context — one `malloc` on every append and a `free` on every
    /// take (measured: exactly one allocation per post, and 144 against 56 ns/post). With the wrapper a post allocates
    /// nothing once the arrays have grown.
    package struct Slot {
        /// The job; `nil` once it has been taken to run, or released at a drain deadline.
        package var job: Job?
        /// Whether it is a posted closure (which a drain deadline may release) rather than an executor job (which
        /// must run, or its task would never resume).
        package let isPost: Bool

        @inline(__always)
        init(_ job: @escaping Job, isPost: Bool) {
            self.job = job
            self.isPost = isPost
        }
    }

    /// Until when the loop keeps running posted work once the queue is closed.
    package enum DrainDeadline: Sendable, Equatable {
        /// Until this instant on the loop's clock.
        case at(LoopInstant)
        /// For this long after the loop begins to shut down (for virtual time, which no other thread can read).
        case afterShutdownBegins(Duration)
    }

    /// What ``enqueue(_:)`` did.
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

    private enum State {
        case open
        case draining
        case closed
    }

    private let lock = _Lock()
    // @exclusivity(unchecked): `lock` already serialises every access; the runtime's dynamic exclusivity check cost
    // more than the lock itself on the post path (measured with perf: `swift_beginAccess` and its thread-local set).
    @exclusivity(unchecked) private var incoming = ContiguousArray<Slot>()
    @exclusivity(unchecked) private var state = State.open
    @exclusivity(unchecked) private var bound: _PostBound
    private var drainDeadline: DrainDeadline?
    private var waker: (@Sendable () -> Void)?

    /// Creates an open queue.
    ///
    /// - Parameter limit: At most this many posts pending at once; `nil` for no limit.
    package init(limit: Int? = nil) {
        bound = _PostBound(limit: limit)
    }

    /// Erases the isolation of a main-actor job so that the queue can hold it.
    ///
    /// `@MainActor` does not change a closure's representation, so this costs nothing. Only a loop that runs its jobs
    /// on the main actor (`_LoopCore`) may enqueue what this returns.
    @inline(__always)
    package static func mainActorJob(_ job: @escaping @MainActor @Sendable () -> Void) -> Job {
        unsafeBitCast(job, to: Job.self)
    }

    // MARK: Producers

    /// Appends a posted closure unless the queue is no longer open or is full. Never blocks beyond the critical section.
    @inline(__always)
    package func enqueue(_ job: @escaping Job) -> EnqueueResult {
        lock.lock()
        defer { lock.unlock() }
        guard case .open = state else { return .closed }
        guard bound.admits(incoming: incoming.count) else { return .full }
        return appendLocked(Slot(job, isPost: true))
    }

    /// Appends an executor job unless the queue is closed (it is accepted while draining).
    @inline(__always)
    package func enqueueJob(_ job: @escaping Job) -> EnqueueResult {
        lock.lock()
        defer { lock.unlock() }
        if case .closed = state { return .closed }
        return appendLocked(Slot(job, isPost: false))
    }

    @inline(__always)
    private func appendLocked(_ slot: Slot) -> EnqueueResult {
        incoming.append(slot)
        guard incoming.count == 1 else { return .enqueued }
        guard let waker else { return .enqueuedWithoutWaker }
        waker()
        return .enqueued
    }

    /// Installs (or, with `nil`, removes) what wakes the loop. Wakes at once when jobs are already waiting.
    ///
    /// After `setWaker(nil)` has returned no thread is still calling the old waker: it runs under the same lock.
    package func setWaker(_ newWaker: (@Sendable () -> Void)?) {
        lock.withLock {
            waker = newWaker
            if let newWaker, !incoming.isEmpty { newWaker() }
        }
    }

    /// Wakes the loop for work that is not a post (a timer or an idle body registered from another thread). Returns
    /// `false` when no waker is installed: the caller must start the loop (or the loop is gone).
    @discardableResult
    package func wake() -> Bool {
        lock.withLock {
            guard let waker else { return false }
            waker()
            return true
        }
    }

    /// Stops accepting posts (executor jobs are still taken until ``finishDraining()``) and wakes the loop so that it
    /// notices. Returns `false` if it was already closed to posts.
    ///
    /// - Parameter drainDeadline: When the loop stops running what was posted before the close and releases the rest
    ///   unrun; `nil` runs everything. Ignored when the queue was already closed.
    @discardableResult
    package func close(drainDeadline: DrainDeadline? = nil) -> Bool {
        lock.withLock {
            guard case .open = state else { return false }
            state = .draining
            self.drainDeadline = drainDeadline
            waker?()
            return true
        }
    }

    // MARK: The loop

    /// Whether ``close(drainDeadline:)`` was called: posts are refused.
    package var closed: Bool { lock.withLock { state != .open } }

    /// The deadline given to ``close(drainDeadline:)``, if any.
    package var closingDeadline: DrainDeadline? { lock.withLock { drainDeadline } }

    /// Changes the limit on pending posts (`nil`: none). Posts already accepted stay accepted.
    package func setLimit(_ limit: Int?) {
        lock.withLock {
            bound.limit = limit
            if limit == nil { bound.taken = 0 }
        }
    }

    /// The loop still holds `count` taken jobs that have not run. Called after a post phase, with a limit only.
    package func loopHolds(_ count: Int) {
        lock.withLock { bound.taken = count }
    }

    /// Posts refused so far because the limit was reached.
    package var rejectedCount: Int { lock.withLock { bound.rejected } }

    /// How many jobs are waiting to be taken.
    package var incomingCount: Int { lock.withLock { incoming.count } }

    /// Whether jobs are waiting to be taken.
    package var hasIncoming: Bool { lock.withLock { !incoming.isEmpty } }

    /// Whether the loop must run a post phase before it blocks: jobs are waiting, or the queue was closed (the post
    /// phase is where a loop notices that and shuts down). A producer on the loop's own thread does not wake the loop,
    /// so the loop asks this before every poll.
    package var needsPostPhase: Bool { lock.withLock { !incoming.isEmpty || state != .open } }

    /// For a snapshot, under one lock: the jobs waiting to be taken, posts refused so far, and whether the queue still
    /// accepts posts.
    package var snapshotCounts: (waiting: Int, rejected: Int, isOpen: Bool) {
        lock.withLock { (incoming.count, bound.rejected, state == .open) }
    }

    /// Swaps every waiting job into `batch`, which must be empty; `batch`'s old storage is kept for reuse.
    ///
    /// - Returns: The drain deadline once the queue is closed with one, else `nil`.
    package func takeAll(into batch: inout ContiguousArray<Slot>) -> DrainDeadline? {
        precondition(batch.isEmpty, "BUG DETECTED: the loop's batch must be empty before the next take")
        return lock.withLock {
            swap(&incoming, &batch)
            if bound.isTracking { bound.taken = batch.count }
            return state == .open ? nil : drainDeadline
        }
    }

    /// Releases every posted closure still waiting here (executor jobs stay); returns how many.
    package func releasePosts() -> Int {
        // Released outside the lock: a closure's release may run arbitrary deinit code.
        var released = ContiguousArray<Slot>()
        let count = lock.withLock {
            let before = incoming.count
            var kept = ContiguousArray<Slot>()
            for slot in incoming {
                if slot.isPost { released.append(slot) } else { kept.append(slot) }
            }
            incoming = kept
            return before - incoming.count
        }
        released.removeAll()
        return count
    }

    /// What the loop does after a post phase.
    package enum AfterPhase {
        /// Jobs are still waiting (in the loop's batch or here): the loop must arrange its next post phase itself.
        case moreWaiting
        /// Nothing is waiting and the queue is open: the loop may block.
        case idle
        /// Nothing is waiting and the queue was draining: it is now closed, the loop shuts down.
        case closed
    }

    /// Decides, under one lock, what follows a post phase that left `batchIsDone` (the loop's taken batch has run
    /// completely) behind. Closing here is the last word: from then on nothing is accepted.
    package func afterPhase(batchIsDone: Bool) -> AfterPhase {
        lock.withLock {
            guard batchIsDone, incoming.isEmpty else { return .moreWaiting }
            switch state {
            case .open: return .idle
            case .draining:
                state = .closed
                return .closed
            case .closed: return .closed
            }
        }
    }

    /// Refuses everything from now on (the loop is shutting down) and returns whatever is still waiting, for the
    /// caller to run or release outside the lock.
    package func finishDraining(into batch: inout ContiguousArray<Slot>) {
        precondition(batch.isEmpty, "BUG DETECTED: the loop's batch must be empty before the last take")
        lock.withLock {
            state = .closed
            swap(&incoming, &batch)
        }
    }
}
