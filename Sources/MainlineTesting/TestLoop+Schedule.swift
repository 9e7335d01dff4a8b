import Glibc
import MainlineLoopCore

// A test loop's schedule (`TestSchedule`): how the loop tells the core which ready item runs next, and which producer
// made each post.
extension TestLoop {
    /// Creates a test loop that runs, wherever the package's rules allow more than one order, the work `schedule`
    /// chooses, and records every choice in it (see ``TestSchedule``).
    ///
    /// Callable from any thread. Without a schedule (`init(now:budgets:)`), a test loop runs the real loop's order and
    /// records nothing.
    ///
    /// - Parameters:
    ///   - schedule: The order of ready work; several loops of one test may share it.
    ///   - now: The starting time.
    ///   - budgets: The per-iteration budgets.
    public nonisolated convenience init(
        schedule: TestSchedule,
        now: LoopInstant = .zero,
        budgets: LoopBudgets = .default
    ) {
        self.init(now: now, budgets: budgets, order: _TestLoopOrder(schedule))
    }

    /// Creates a test loop that replays the run `line` recorded: the line a failing
    /// `explore(seeds:strategy:checksDeterminism:sourceLocation:_:)` printed, or a schedule's ``TestSchedule/replayLine``.
    ///
    /// Callable from any thread. Create every loop of the test with the same line's schedule, as the failing run did
    /// (`TestSchedule(replaying:)` once, then `TestLoop(schedule:)` for each loop, when there are several).
    ///
    /// - Throws: `TestSchedule.ReplayLineError` naming what in `line` could not be read.
    public nonisolated convenience init(
        replaying line: String,
        now: LoopInstant = .zero,
        budgets: LoopBudgets = .default
    ) throws(TestSchedule.ReplayLineError) {
        self.init(schedule: try TestSchedule(replaying: line), now: now, budgets: budgets)
    }

    /// The loop's schedule; `nil` for a loop created without one. Readable from any thread.
    public nonisolated var schedule: TestSchedule? { order?.schedule }

    /// Enqueues a post, noting its producer (the posting task, or thread outside a task) when the loop has a
    /// schedule. Thread-safe.
    nonisolated func enqueue(
        _ body: @escaping @MainActor @Sendable () -> Void,
        site: LoopSite
    ) -> _JobQueue.EnqueueResult {
        guard let order else { return core.post(body, site: site) }
        noteIfFromOtherThread("a post at \(site)")
        return order.enqueue { core.post(body, site: site) }
    }

    /// During an exploration run, records a call from a thread the loop did not start — one that is not the main
    /// actor's, where the run's loops, its test body and its tasks all run — as an escape (`_Escape`), unless it is
    /// inside `outsideVirtualTime`. Thread-safe.
    nonisolated func noteIfFromOtherThread(_ detail: @autoclosure () -> String) {
        guard let lane = order?.schedule.lane, _TaskLane.isAnyWatching,
            _TaskLane.allowance == nil, !_RunningLoop.isOnMainActor
        else { return }
        lane.record(_Escape(kind: .postFromOtherThread, detail: detail(), context: "a thread the loop did not start"))
    }
}

/// A scheduled test loop's ``_ReadyOrder``: the producer of every post, in queue order, and its schedule's choices.
///
/// Thread-safe: posts record their producer under `lock` from any thread; the core asks on the main actor.
final class _TestLoopOrder: _ReadyOrder, @unchecked Sendable {
    // @unchecked Sendable: `producers` and `taken` are protected by `lock`; `schedule` is thread-safe.

    let schedule: TestSchedule
    private let lock = _Lock()
    /// The producer of every post accepted and not yet taken by a post phase, in queue order.
    private var producers: [UInt64] = []
    private var taken = 0

    init(_ schedule: TestSchedule) { self.schedule = schedule }

    /// Runs `enqueue` (one post) and, when it was accepted, records the calling thread as its producer — under one
    /// lock, so that the producers' order is the queue's.
    func enqueue(_ enqueue: () -> _JobQueue.EnqueueResult) -> _JobQueue.EnqueueResult {
        lock.withLock {
            let result = enqueue()
            switch result {
            case .enqueued, .enqueuedWithoutWaker: producers.append(Self.producer)
            case .closed, .full: break
            }
            return result
        }
    }

    /// The producer of a post made now: the posting task (so that the tasks of an exploration run, which all run on
    /// the main thread, are producers of their own), or the posting thread outside a task.
    private static var producer: UInt64 {
        _VirtualTimeTasks.currentTaskID.map { $0 | 0x7A5D_0000_0000_0000 } ?? UInt64(pthread_self())
    }

    func nextPostProducer() -> UInt64 {
        lock.withLock {
            guard taken < producers.count else { return 0 }
            defer {
                taken += 1
                if taken > 1024 {
                    producers.removeFirst(taken)
                    taken = 0
                }
            }
            return producers[taken]
        }
    }

    func choose(_ kind: _ReadyKind, among candidates: [_ReadyCandidate]) -> Int {
        schedule.choose(kind, among: candidates)
    }
}
