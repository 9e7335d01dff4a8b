import Atomics

/// What a loop has done and is doing, for snapshots: the phase it is in and its counters.
///
/// Written only where the loop runs (the main actor, or an `EventLoop`'s thread); read from any thread. Every value
/// is an atomic that only the loop writes (relaxed load and store, no read-modify-write) and any thread reads
/// (relaxed: a snapshot is a report, not a synchronization point) — so an `EventLoop` snapshot taken on another
/// thread answers even while a callback blocks the loop, and the main loop pays plain stores for the same counters.
///
/// Kept for snapshots, so it must cost nothing when nobody takes one: each phase writes its marker once and adds its
/// count once (per phase, never per post or per timer), and the iteration count is one add per iteration.
package final class _LoopProgress: Sendable {
    private let phaseCode = ManagedAtomic<UInt8>(LoopSnapshot.Phase.waiting.code)
    private let iterationCount = ManagedAtomic<Int>(0)
    private let postsRunCount = ManagedAtomic<Int>(0)
    private let timersFiredCount = ManagedAtomic<Int>(0)
    private let discardedCount = ManagedAtomic<Int>(0)

    package init() {}

    // MARK: Where the loop runs

    /// A phase begins (`.waiting` when the loop is about to wait for I/O or time).
    @inline(__always)
    func enter(_ phase: LoopSnapshot.Phase) {
        phaseCode.store(phase.code, ordering: .relaxed)
    }

    /// A post phase ran `ran` jobs.
    @inline(__always)
    func didRunPosts(_ ran: Int) {
        add(ran, to: postsRunCount)
    }

    /// A timer phase fired `fired` timers.
    @inline(__always)
    func didFireTimers(_ fired: Int) {
        add(fired, to: timersFiredCount)
    }

    /// The iteration is over: the loop waits for the next one.
    @inline(__always)
    func endIteration() {
        add(1, to: iterationCount)
        phaseCode.store(LoopSnapshot.Phase.waiting.code, ordering: .relaxed)
    }

    /// A drain deadline released `count` posted jobs unrun.
    func didDiscard(_ count: Int) {
        add(count, to: discardedCount)
    }

    /// Only the loop writes: a load and a store, not a read-modify-write.
    @inline(__always)
    private func add(_ value: Int, to counter: ManagedAtomic<Int>) {
        counter.store(counter.load(ordering: .relaxed) &+ value, ordering: .relaxed)
    }

    // MARK: Any thread

    /// The phase running now (`.waiting` between iterations).
    var phase: LoopSnapshot.Phase { LoopSnapshot.Phase(code: phaseCode.load(ordering: .relaxed)) }
    /// Iterations completed.
    var iterations: Int { iterationCount.load(ordering: .relaxed) }
    /// Posted jobs run, including those run while shutting down.
    var postsRun: Int { postsRunCount.load(ordering: .relaxed) }
    /// Timer firings.
    var timersFired: Int { timersFiredCount.load(ordering: .relaxed) }
    /// Posted jobs released unrun at a drain deadline.
    var discarded: Int { discardedCount.load(ordering: .relaxed) }
}

extension LoopSnapshot.Phase {
    private static let all: [Self] = [.waiting, .timers, .posts, .settle, .stopping, .stopped]

    /// The phase as one byte, for an atomic.
    var code: UInt8 {
        switch self {
        case .waiting: 0
        case .timers: 1
        case .posts: 2
        case .settle: 3
        case .stopping: 4
        case .stopped: 5
        }
    }

    init(code: UInt8) {
        self = Self.all[Int(code)]
    }
}
