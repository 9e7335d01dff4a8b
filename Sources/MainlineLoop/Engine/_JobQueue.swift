import Atomics
import CMainlineShims

/// The one queue behind every loop's `post`, and behind an `EventLoop`'s executor: any thread enqueues without a lock,
/// the loop takes everything in one atomic exchange.
///
/// All operations on `_JobQueue` are thread-safe.
///
/// **The stack.** Jobs are pushed, newest first, onto a lock-free stack of nodes (`_JobNode`) with one compare-and-swap
/// on ``top``, and the loop takes the whole stack with one exchange and reverses it (`_JobBatch`) — the C floor's queue
/// in `Benchmarks/`, with nodes that the calling thread takes from its own cache (`job_nodes.c`), so that a post
/// allocates nothing and takes no lock in steady state. A producer wakes the loop only when its push finds the stack
/// empty, so a flood costs one wake-up per batch the loop takes, not one per post. Because every take empties the
/// stack, the next push after a take always wakes: no wake-up is lost. The loop drains with a budget, so it must
/// arrange its *own* next post phase while anything is still waiting (`_UVEngine.requestPostPhase()`): producers will
/// not.
///
/// **Life**: `open` (posts and jobs accepted) → `draining` (after ``close(drainDeadline:)``: posts refused, executor
/// jobs still accepted so that tasks already running on an `EventLoop` can finish) → `closed` (nothing accepted; the
/// loop shuts down). The state lives in the two low bits of ``top`` (nodes are 16-byte aligned), so a push and the state
/// it was accepted in are one atomic step: a push can never land in a queue that has finished draining.
///
/// **The close race** has one answer: the waker runs under `lock`, and the loop removes it (``setWaker(_:)`` with
/// `nil`) before it frees what the waker touches. Once that call has returned, no producer can still be waking the loop.
///
/// **A limit** on pending posts (``LoopBudgets/maxPendingPosts``) is kept in counters only while one is set: each job
/// accepted then is marked `counted` and counted in `pending` until the loop has run or released it. A post that would
/// exceed the limit is refused (``EnqueueResult/full``) and counted in `rejected`; executor jobs are never refused for
/// it — a task's job must run — but count as pending.
package final class _JobQueue: @unchecked Sendable {
    // @unchecked Sendable: `top`, `limit`, `pending` and `rejected` are atomics; `drainDeadline` and `waker` are
    // protected by `lock`; `walkLock` keeps counting walks and takes apart. A node's contents belong to one thread at a time (see `_JobNode`): written before the
    // releasing push, read after the acquiring take.

    /// A job as the queue holds it. A main-actor loop's jobs are main-actor closures with their isolation erased
    /// (``mainActorJob(_:)``): the loop runs them only on the main actor.
    package typealias Job = @Sendable () -> Void

    /// A job as a node holds it.
    ///
    /// Wrapping the closure in a struct keeps it at its concrete abstraction level. A bare `Job?` stored through a
    /// generic pointer is stored at the generic one, which costs a reabstraction-thunk context — one `malloc` on every
    /// post and a `free` on every take (measured: exactly one allocation per post, and 144 against 56 ns/post).
    package struct Slot {
        /// The job; `nil` once it was released unrun (at a drain deadline).
        package var job: Job?
        /// Whether it is a posted closure (which a drain deadline may release) rather than an executor job (which
        /// must run, or its task would never resume).
        package let isPost: Bool
        /// Whether the job is counted in the queue's `pending` (accepted while a limit was set).
        package var counted: Bool

        @inline(__always)
        init(_ job: @escaping Job, isPost: Bool, counted: Bool) {
            self.job = job
            self.isPost = isPost
            self.counted = counted
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

    /// In ``top``: posts are refused (draining).
    private static let drainingBit: UInt = 1
    /// In ``top``: everything is refused (closed).
    private static let closedBit: UInt = 2
    private static let stateBits: UInt = 3

    /// The newest node's address, or 0, with the state in the two low bits.
    private let top = UnsafeAtomic<UInt>.create(0)
    /// The limit on pending posts, or -1 for none.
    private let limit: UnsafeAtomic<Int>
    /// Counted jobs accepted and not yet run or released (see the type's documentation).
    private let pending = UnsafeAtomic<Int>.create(0)
    /// Posts refused for the limit, since the queue was created.
    private let rejected = UnsafeAtomic<Int>.create(0)

    /// Protects `waker` and `drainDeadline`; producers take it only to wake the loop.
    private let lock = _Lock()
    private var drainDeadline: DrainDeadline?
    private var waker: (@Sendable () -> Void)?
    /// Held by every take and every counting walk, so that a walk never follows a node the loop has taken. Apart from
    /// `lock`, so that a loop's take never contends with a producer that wakes it.
    private let walkLock = _Lock()

    /// Creates an open queue.
    ///
    /// - Parameter limit: At most this many posts pending at once; `nil` for no limit.
    package init(limit: Int? = nil) {
        precondition(Slot.fitsANode, "BUG DETECTED: a job queue's slot no longer fits a mainline_job_node")
        self.limit = .create(limit ?? -1)
    }

    deinit {
        // Whatever nobody took is released here (the loop normally drains before it lets go of its queue).
        var node = Self.nodes(top.load(ordering: .acquiring))
        while let current = node {
            node = current.following
            _ = current.giveBack()
        }
        top.destroy()
        limit.destroy()
        pending.destroy()
        rejected.destroy()
    }

    /// Erases the isolation of a main-actor job so that the queue can hold it.
    ///
    /// `@MainActor` does not change a closure's representation, so this costs nothing. Only a loop that runs its jobs
    /// on the main actor (`_LoopCore`) may enqueue what this returns.
    @inline(__always)
    package static func mainActorJob(_ job: @escaping @MainActor @Sendable () -> Void) -> Job {
        unsafeBitCast(job, to: Job.self)
    }

    @inline(__always)
    private static func nodes(_ word: UInt) -> _JobNode? {
        _JobNode(bitPattern: word & ~stateBits)
    }

    // MARK: Producers

    /// Pushes a posted closure unless the queue is no longer open or is full. Takes no lock unless it must wake the
    /// loop.
    @inline(__always)
    package func enqueue(_ job: @escaping Job) -> EnqueueResult {
        push(job, isPost: true)
    }

    /// Pushes an executor job unless the queue is closed (it is accepted while draining).
    @inline(__always)
    package func enqueueJob(_ job: @escaping Job) -> EnqueueResult {
        push(job, isPost: false)
    }

    @inline(__always)
    private func push(_ job: @escaping Job, isPost: Bool) -> EnqueueResult {
        let refusedBits = isPost ? Self.stateBits : Self.closedBit
        var word = top.load(ordering: .relaxed)
        if word & refusedBits != 0 { return .closed }
        let counted = limit.load(ordering: .relaxed) >= 0
        if counted, !admit(isPost: isPost) { return .full }
        let node = _JobNode.taking(holding: Slot(job, isPost: isPost, counted: counted))
        while true {
            if word & refusedBits != 0 { return refuse(node) }
            node.following = Self.nodes(word)
            let (exchanged, found) = top.weakCompareExchange(
                expected: word,
                desired: UInt(bitPattern: node) | (word & Self.stateBits),
                successOrdering: .releasing,
                failureOrdering: .relaxed
            )
            if exchanged { break }
            word = found
        }
        // Only a push onto an empty stack wakes: any other found one that did, whose take has not happened yet.
        return word & ~Self.stateBits == 0 ? wakeForFirstJob() : .enqueued
    }

    /// Counts one more pending job against the limit; a post beyond it is refused and counted.
    @inline(never)
    private func admit(isPost: Bool) -> Bool {
        let before = pending.loadThenWrappingIncrement(ordering: .relaxed)
        guard isPost, before >= limit.load(ordering: .relaxed) else { return true }
        pending.wrappingDecrement(ordering: .relaxed)
        rejected.wrappingIncrement(ordering: .relaxed)
        return false
    }

    /// The queue closed between the first look and the push: the job is released unrun, its node given back.
    @inline(never)
    private func refuse(_ node: _JobNode) -> EnqueueResult {
        if node.giveBack().counted { pending.wrappingDecrement(ordering: .relaxed) }
        return .closed
    }

    @inline(never)
    private func wakeForFirstJob() -> EnqueueResult {
        lock.lock()
        defer { lock.unlock() }
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
            if let newWaker, hasIncoming { newWaker() }
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
            // Only `close` sets the draining bit, under this lock; the closed bit follows it.
            guard top.load(ordering: .relaxed) & Self.stateBits == 0 else { return false }
            // The deadline first: a loop that sees the bit reads the deadline under this lock.
            self.drainDeadline = drainDeadline
            _ = top.loadThenBitwiseOr(with: Self.drainingBit, ordering: .acquiringAndReleasing)
            waker?()
            return true
        }
    }

    // MARK: The loop

    /// Whether ``close(drainDeadline:)`` was called: posts are refused.
    package var closed: Bool { top.load(ordering: .acquiring) & Self.stateBits != 0 }

    /// The deadline given to ``close(drainDeadline:)``, if any.
    package var closingDeadline: DrainDeadline? { lock.withLock { drainDeadline } }

    /// Changes the limit on pending posts (`nil`: none). Posts already accepted stay accepted.
    ///
    /// Call it where the loop runs, with the loop's `batch`: when a limit starts, the jobs already waiting (here and in
    /// the batch) start to count, so that the limit bounds what is pending from the next post on.
    package func setLimit(_ newLimit: Int?, batch: inout _JobBatch) {
        let wasTracking = limit.exchange(newLimit ?? -1, ordering: .relaxed) >= 0
        guard newLimit != nil, !wasTracking else { return }
        var newlyCounted = batch.countAllWaiting()
        walkLock.withLock {
            // Under the lock no take can happen, so the nodes reachable from the top stay in the stack while they are
            // marked; a producer never touches its node after the push.
            var node = Self.nodes(top.load(ordering: .acquiring))
            while let current = node {
                if !current.slot.pointee.counted {
                    current.slot.pointee.counted = true
                    newlyCounted += 1
                }
                node = current.following
            }
        }
        pending.wrappingIncrement(by: newlyCounted, ordering: .relaxed)
    }

    /// The loop ran or released `count` counted jobs (see `_JobBatch.reportFinished(to:)`).
    package func didFinish(counted count: Int) {
        pending.wrappingDecrement(by: count, ordering: .relaxed)
    }

    /// Posts refused so far because the limit was reached.
    package var rejectedCount: Int { rejected.load(ordering: .relaxed) }

    /// How many jobs are waiting to be taken. O(n): walks the stack under the lock (for snapshots).
    package var incomingCount: Int {
        walkLock.withLock {
            var count = 0
            var node = Self.nodes(top.load(ordering: .acquiring))
            while let current = node {
                count += 1
                node = current.following
            }
            return count
        }
    }

    /// Whether jobs are waiting to be taken.
    package var hasIncoming: Bool { top.load(ordering: .relaxed) & ~Self.stateBits != 0 }

    /// Whether the loop must run a post phase before it blocks: jobs are waiting, or the queue was closed (the post
    /// phase is where a loop notices that and shuts down). A producer on the loop's own thread does not wake the loop,
    /// so the loop asks this before every poll.
    package var needsPostPhase: Bool { top.load(ordering: .relaxed) != 0 }

    /// For a snapshot: the jobs waiting to be taken, posts refused so far, and whether the queue still accepts posts.
    package var snapshotCounts: (waiting: Int, rejected: Int, isOpen: Bool) {
        (incomingCount, rejectedCount, !closed)
    }

    /// Takes every waiting job, newest first, leaving the state as it is.
    ///
    /// - Returns: The newest node (`nil`: none was waiting), and the drain deadline once the queue is closed with one.
    package func takeAll() -> (newest: _JobNode?, deadline: DrainDeadline?) {
        // Under `walkLock` so that a counting walk (``incomingCount``, ``setLimit(_:batch:)``) never sees a node taken.
        let word = walkLock.withLock { top.loadThenBitwiseAnd(with: Self.stateBits, ordering: .acquiring) }
        // The deadline was set before the draining bit, under `lock`.
        return (Self.nodes(word), word & Self.stateBits == 0 ? nil : closingDeadline)
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

    /// Decides, in one atomic step, what follows a post phase that left `batchIsDone` (the loop's taken batch has run
    /// completely) behind. Closing here is the last word: from then on nothing is accepted.
    package func afterPhase(batchIsDone: Bool) -> AfterPhase {
        guard batchIsDone else { return .moreWaiting }
        var word = top.load(ordering: .acquiring)
        while true {
            if word & ~Self.stateBits != 0 { return .moreWaiting }
            if word & Self.closedBit != 0 { return .closed }
            if word & Self.drainingBit == 0 { return .idle }
            let (exchanged, found) = top.compareExchange(
                expected: word,
                desired: Self.closedBit,
                ordering: .acquiringAndReleasing
            )
            if exchanged { return .closed }
            word = found
        }
    }

    /// Refuses everything from now on (the loop is shutting down) and returns whatever is still waiting, newest first,
    /// for the caller to run or release.
    package func finishDraining() -> _JobNode? {
        walkLock.withLock { Self.nodes(top.exchange(Self.closedBit, ordering: .acquiringAndReleasing)) }
    }
}
