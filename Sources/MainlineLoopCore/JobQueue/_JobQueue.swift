import Atomics
import Glibc

/// The one queue behind every loop's `post`, and behind an `EventLoop`'s executor: any thread enqueues without a lock,
/// the loop reads the jobs in order from the same memory.
///
/// The producer side (this file) is thread-safe. The loop side (`_JobQueue+Loop.swift`) is not: only the thread or
/// actor the loop runs on calls it.
///
/// **Blocks.** Jobs live in blocks of ``_JobBlock/capacity`` slots, linked in posting order (crossbeam's unbounded
/// list channel). A producer reserves the next position with one compare-and-swap on `tail`, writes its job into that
/// slot and stamps it (a plain store); the producer that reserves a block's last slot installs the next block. The loop
/// reads slot after slot (no lock, no second pass, memory in order), and hands the blocks it has left back for reuse
/// (`spares`), so a steady flood allocates nothing. A slot reserved but not yet stamped stops the loop's phase there;
/// the loop comes round for it (it is being written).
///
/// **Waking.** Right before it blocks, a loop that finds the queue empty sets ``sleepingBit`` in `tail`
/// (`prepareToSleep()`) — with a compare-and-swap that fails if anything was reserved meanwhile. The producer whose
/// reservation finds the bit clears it in the same compare-and-swap and wakes the loop once its job is written; while
/// the loop is awake (running timers, settle, I/O) producers find no bit and wake nothing. So a post costs one atomic operation, a
/// flood costs one wake-up per batch the loop takes, not one per post, and no wake-up is lost: the loop's bit and a
/// producer's reservation are ordered on one word. The loop drains with a budget, so it must arrange its *own* next post
/// phase while anything is still waiting (`_UVEngine.requestPostPhase()`): producers will not.
///
/// **Life**: `open` (posts and jobs accepted) → `draining` (after ``close(drainDeadline:)``: posts refused, executor
/// jobs still accepted so that tasks already running on an `EventLoop` can finish) → `closed` (nothing accepted; the
/// loop shuts down). The state lives in the two low bits of `tail`, so a reservation and the state it was accepted in
/// are one atomic step: a job can never land in a queue that has finished draining.
///
/// **The close race** has one answer: the waker runs under `lock`, and the loop removes it (``setWaker(_:)`` with
/// `nil`) before it frees what the waker touches. Once that call has returned, no producer can still be waking the loop.
///
/// **A limit** on pending posts (``LoopBudgets/maxPendingPosts``): pending is everything accepted and not yet run —
/// the positions between the loop's published head and `tail`. A post that would exceed the limit is refused
/// (``EnqueueResult/full``) and counted; executor jobs are never refused for it — a task's job must run.
package final class _JobQueue: @unchecked Sendable {
    // @unchecked Sendable: `tail`, `tailBlock`, `head`, `limit` and `rejected` are atomics; `spares` is thread-safe;
    // `drainDeadline` and `waker` are protected by `lock`; `loop` is touched only where the loop runs. A slot belongs
    // to one thread at a time (see `_JobBlock`).

    /// A job as the queue holds it. A main-actor loop's jobs are main-actor closures with their isolation erased
    /// (``mainActorJob(_:)``): the loop runs them only on the main actor.
    package typealias Job = @Sendable () -> Void

    /// A job as a slot holds it.
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

        @inline(__always)
        init(_ job: consuming @escaping Job, isPost: Bool) {
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

    /// In `tail`: posts are refused (draining).
    static let drainingBit: UInt = 1
    /// In `tail`: everything is refused (closed).
    static let closedBit: UInt = 2
    static let stateBits: UInt = 3
    /// In `tail`: the loop found the queue empty here and sleeps; the producer that takes the position wakes it.
    static let sleepingBit: UInt = 4
    /// `tail` holds the next position shifted past the state and sleeping bits.
    static let shift: UInt = 3
    static let onePosition: UInt = 1 << shift

    /// The next position to reserve, shifted by ``shift``, with the state in the two low bits and the loop's
    /// ``sleepingBit``. A new queue is a loop asleep on an empty queue: the first post wakes it.
    let tail: UnsafeAtomic<UInt>
    /// The block the tail's position is in (the address of its memory).
    let tailBlock: UnsafeAtomic<UInt>
    /// The loop's head, in slots, as of its last post phase: what has run (for the limit and the counts).
    let head: UnsafeAtomic<Int>
    /// The limit on pending posts, or -1 for none.
    private let limit: UnsafeAtomic<Int>
    /// Posts refused for the limit, since the queue was created.
    private let rejected = UnsafeAtomic<Int>.create(0)
    /// Blocks the loop has left, oldest first, for the producers that install the next ones (see `_JobBlockPool`).
    let spares = _JobBlockPool()

    /// The memory of `tail`, `tailBlock`, `limit` and `head` (see `init`).
    private let words: UnsafeMutableRawPointer
    private static let cacheLine = 64

    /// An atomic `UInt` at `offset` in `words`, initialised to `value`.
    private static func word(_ words: UnsafeMutableRawPointer, _ offset: Int, _ value: UInt) -> UnsafeAtomic<UInt> {
        UnsafeAtomic(
            at: (words + offset).initializeMemory(as: UInt.AtomicRepresentation.self, repeating: .init(value), count: 1)
        )
    }

    /// An atomic `Int` at `offset` in `words`, initialised to `value`.
    private static func count(_ words: UnsafeMutableRawPointer, _ offset: Int, _ value: Int) -> UnsafeAtomic<Int> {
        UnsafeAtomic(
            at: (words + offset).initializeMemory(as: Int.AtomicRepresentation.self, repeating: .init(value), count: 1)
        )
    }

    /// For the package's tests: a producer that installs a block yields between taking the block's last position and
    /// moving the tail past it, so that the loop often takes a batch while the tail rests there.
    private let yieldsWhileInstalling = UnsafeAtomic<Bool>.create(false)

    /// Protects `waker` and `drainDeadline`; producers take it only to wake the loop.
    private let lock = _Lock()
    private var drainDeadline: DrainDeadline?
    private var waker: (@Sendable () -> Void)?

    /// The loop's side: where it reads, and the end of the batch it took (see `_JobQueue+Loop.swift`). Allocated on
    /// its own, so that the loop's writes never share a cache line with what producers read.
    package let loop: UnsafeMutablePointer<_JobCursor>

    /// Creates an open queue.
    ///
    /// - Parameter limit: At most this many posts pending at once; `nil` for no limit.
    package init(limit: Int? = nil) {
        let first = _JobBlock.allocate()
        // What producers touch on every post (`tail`, `tailBlock`, `limit`) on one cache line, what the loop writes
        // once per phase (`head`) on the next: the loop's write never takes the producers' line away.
        words = .allocate(byteCount: 2 * Self.cacheLine, alignment: Self.cacheLine)
        tail = Self.word(words, 0, Self.sleepingBit)
        tailBlock = Self.word(words, 8, UInt(bitPattern: first.base))
        self.limit = Self.count(words, 16, limit ?? -1)
        head = Self.count(words, Self.cacheLine, 0)
        loop = .allocate(capacity: 1)
        loop.initialize(to: _JobCursor(block: first))
    }

    deinit {
        // Whatever nobody ran is released here (a loop normally drains before it lets go of its queue). No producer
        // can be mid-write: each holds the queue while it posts.
        _ = releaseTaken(upTo: tail.load(ordering: .acquiring) >> Self.shift)
        loop.pointee.block.deallocate()
        loop.deinitialize(count: 1)
        loop.deallocate()
        words.deallocate()
        rejected.destroy()
        yieldsWhileInstalling.destroy()
    }

    /// Erases the isolation of a main-actor job so that the queue can hold it.
    ///
    /// `@MainActor` does not change a closure's representation, so this costs nothing. Only a loop that runs its jobs
    /// on the main actor (`_LoopCore`) may enqueue what this returns.
    @inline(__always)
    package static func mainActorJob(_ job: consuming @escaping @MainActor @Sendable () -> Void) -> Job {
        unsafeBitCast(job, to: Job.self)
    }

    // MARK: Producers

    /// Queues a posted closure unless the queue is no longer open or is full. Takes no lock unless it must wake the
    /// loop.
    ///
    /// - Parameters:
    ///   - job: The closure.
    ///   - site: Where it was posted, kept in its slot.
    @inline(__always)
    package func enqueue(_ job: consuming @escaping Job, site: LoopSite) -> EnqueueResult {
        push(job, site: site, isPost: true)
    }

    /// Queues an executor job unless the queue is closed (it is accepted while draining).
    @inline(__always)
    package func enqueueJob(_ job: @escaping Job, site: LoopSite) -> EnqueueResult {
        push(job, site: site, isPost: false)
    }

    @inline(__always)
    private func push(_ job: consuming @escaping Job, site: LoopSite, isPost: Bool) -> EnqueueResult {
        let refusedBits = isPost ? Self.stateBits : Self.closedBit
        var word = tail.load(ordering: .acquiring)
        var block = _JobBlock(UnsafeMutableRawPointer(bitPattern: tailBlock.load(ordering: .acquiring))!)
        var nextBlock: _JobBlock? = nil
        defer { if let nextBlock { putSpare(nextBlock) } }
        while true {
            if word & refusedBits != 0 { return .closed }
            let position = word >> Self.shift
            let offset = Int(position % UInt(_JobBlock.lap))
            if offset == _JobBlock.capacity {
                // Another producer is installing the next block: a few instructions away.
                sched_yield()
                word = tail.load(ordering: .acquiring)
                block = _JobBlock(UnsafeMutableRawPointer(bitPattern: tailBlock.load(ordering: .acquiring))!)
                continue
            }
            if isPost, limit.load(ordering: .relaxed) >= 0, !admits(position) { return .full }
            if offset + 1 == _JobBlock.capacity, nextBlock == nil { nextBlock = takeSpare() }
            // Taking the position where the loop went to sleep clears the bit: this producer, and no other, wakes it.
            let (reserved, found) = tail.weakCompareExchange(
                expected: word,
                desired: (word &+ Self.onePosition) & ~Self.sleepingBit,
                successOrdering: .acquiringAndReleasing,
                failureOrdering: .acquiring
            )
            guard reserved else {
                word = found
                block = _JobBlock(UnsafeMutableRawPointer(bitPattern: tailBlock.load(ordering: .acquiring))!)
                continue
            }
            if offset + 1 == _JobBlock.capacity, let next = nextBlock {
                // This job fills the block: install the next one, then move the tail onto it, then link it for the
                // loop. Until the tail moves, other producers wait at the extra position.
                nextBlock = nil
                if yieldsWhileInstalling.load(ordering: .relaxed) { sched_yield() }
                let address = UInt(bitPattern: next.base)
                tailBlock.store(address, ordering: .releasing)
                tail.wrappingIncrement(by: Self.onePosition, ordering: .releasing)
                block.link.store(address, ordering: .releasing)
            }
            block.slot(offset).initialize(to: Slot(consume job, isPost: isPost))
            // The site beside the slot, on its line, in plain stores: inside `Slot` it made the struct wide enough to be
            // copied through its value witness on every post (a retain and a release, measured).
            block.storeSite(site, offset)
            block.stamp(offset).store(_JobBlock.stamp(for: position), ordering: .releasing)
            // Only the job at the position where the loop went to sleep wakes it, once written: any other found a loop
            // that will come round.
            return word & Self.sleepingBit == 0 ? .enqueued : wakeTheLoop()
        }
    }

    /// Whether one more post fits: counts a refusal when it does not.
    @inline(never)
    private func admits(_ position: UInt) -> Bool {
        let pending = _jobSlots(before: position) - head.load(ordering: .acquiring)
        guard pending >= limit.load(ordering: .relaxed) else { return true }
        rejected.wrappingIncrement(ordering: .relaxed)
        return false
    }

    /// A block for a producer to install: the oldest the loop has left, else a new one.
    @inline(never)
    private func takeSpare() -> _JobBlock { spares.take() ?? .allocate() }

    /// Keeps `block` (empty, reset) for reuse, or frees it when enough are kept.
    @inline(never)
    func putSpare(_ block: _JobBlock) { spares.put(block) }

    @inline(never)
    private func wakeTheLoop() -> EnqueueResult {
        lock.lock()
        defer { lock.unlock() }
        guard let waker else { return .enqueuedWithoutWaker }
        waker()
        return .enqueued
    }

    /// Wakes the loop if it went to sleep on an empty queue, for a request that is not a job (a settle request from
    /// another thread): clears the sleeping bit — this caller, and no producer after it, wakes the loop — and calls
    /// the waker. One sequentially consistent load when the loop is awake. Thread-safe.
    ///
    /// - Returns: `.enqueued`, or `.enqueuedWithoutWaker` when no waker is installed yet (the caller starts the loop,
    ///   as for a post).
    package func wakeIfSleeping() -> EnqueueResult {
        var word = tail.load(ordering: .sequentiallyConsistent)
        while word & Self.sleepingBit != 0 {
            let (cleared, found) = tail.compareExchange(
                expected: word,
                desired: word & ~Self.sleepingBit,
                ordering: .sequentiallyConsistent
            )
            if cleared { return wakeTheLoop() }
            word = found
        }
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

    /// Installs the waker of the loop whose running mark (`_RunningLoop`) is `mark` — every loop's one way to install
    /// one: `wake` runs when a post, a close or ``wake()`` finds the loop asleep, except from inside one of the loop's
    /// own phases, which need no wake-up (the loop looks for posts before every poll). Thread-safe.
    ///
    /// - Parameters:
    ///   - mark: The loop's running mark: the address of a `_LoopCore`'s `owner` as an integer, or an `EventLoop`'s
    ///     `_RunningLoop.eventLoopMark(_:)`.
    ///   - wake: Wakes the loop (`uv_async_send`, or a guest pump queued on the main queue); called under the queue's
    ///     lock.
    package func installWaker(loopMark mark: UInt, _ wake: @escaping @Sendable () -> Void) {
        setWaker { if !_RunningLoop.isRunning(identity: mark) { wake() } }
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

    /// Stops accepting posts (executor jobs are still taken until the loop finishes draining) and wakes the loop so
    /// that it notices. Returns `false` if it was already closed to posts.
    ///
    /// - Parameter drainDeadline: When the loop stops running what was posted before the close and releases the rest
    ///   unrun; `nil` runs everything. Ignored when the queue was already closed.
    @discardableResult
    package func close(drainDeadline: DrainDeadline? = nil) -> Bool {
        lock.withLock {
            // Only `close` sets the draining bit, under this lock; the closed bit follows it.
            guard tail.load(ordering: .acquiring) & Self.stateBits == 0 else { return false }
            // The deadline first: a loop that sees the bit reads the deadline under this lock.
            self.drainDeadline = drainDeadline
            _ = tail.loadThenBitwiseOr(with: Self.drainingBit, ordering: .acquiringAndReleasing)
            waker?()
            return true
        }
    }

    // MARK: Any thread

    /// For the package's tests (see `yieldsWhileInstalling`).
    package var yieldsWhileInstallingForTesting: Bool {
        get { yieldsWhileInstalling.load(ordering: .relaxed) }
        set { yieldsWhileInstalling.store(newValue, ordering: .relaxed) }
    }

    /// Whether ``close(drainDeadline:)`` was called: posts are refused.
    package var closed: Bool { tail.load(ordering: .acquiring) & Self.stateBits != 0 }

    /// The deadline given to ``close(drainDeadline:)``, if any.
    package var closingDeadline: DrainDeadline? { lock.withLock { drainDeadline } }

    /// Changes the limit on pending posts (`nil`: none). Posts already accepted stay accepted; every job not yet run
    /// counts.
    package func setLimit(_ newLimit: Int?) {
        limit.store(newLimit ?? -1, ordering: .relaxed)
    }

    /// Posts refused so far because the limit was reached.
    package var rejectedCount: Int { rejected.load(ordering: .relaxed) }

    /// Jobs accepted and not yet run, as of the loop's last post phase (exact on the loop, between phases).
    package var pendingCount: Int {
        _jobSlots(before: tail.load(ordering: .acquiring) >> Self.shift) - head.load(ordering: .acquiring)
    }

    /// Whether jobs are waiting to be run (as of the loop's last post phase).
    package var hasIncoming: Bool { pendingCount != 0 }

    /// Whether the loop must run a post phase before it blocks: jobs are waiting, or the queue was closed (the post
    /// phase is where a loop notices that and shuts down). A producer on the loop's own thread does not wake the loop,
    /// so the loop asks this before every poll.
    package var needsPostPhase: Bool { hasIncoming || closed }

    /// For a snapshot: the jobs accepted and not yet run, posts refused so far, and whether the queue still accepts
    /// posts.
    package var snapshotCounts: (pending: Int, rejected: Int, isOpen: Bool) {
        (pendingCount, rejectedCount, !closed)
    }
}
