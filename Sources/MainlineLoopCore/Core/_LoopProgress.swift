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
package final class _LoopProgress: @unchecked Sendable {
    // @unchecked Sendable: `counters` is written once, in `init`; every access to what it points to is atomic.

    /// The five counters, inline in one allocation (a `ManagedAtomic` each would be five objects, one more pointer to
    /// follow per phase on every loop's hottest path).
    private let counters: UnsafeMutablePointer<Int.AtomicRepresentation>

    private enum Slot: Int, CaseIterable {
        case phase, iterations, postsRun, timersFired, discarded
    }

    package init() {
        counters = .allocate(capacity: Slot.allCases.count)
        counters.initialize(repeating: Int.AtomicRepresentation(0), count: Slot.allCases.count)
        counters[Slot.phase.rawValue] = Int.AtomicRepresentation(Int(LoopSnapshot.Phase.waiting.code))
    }

    deinit {
        counters.deinitialize(count: Slot.allCases.count)
        counters.deallocate()
    }

    @inline(__always)
    private func atomic(_ slot: Slot) -> UnsafeAtomic<Int> {
        UnsafeAtomic(at: counters + slot.rawValue)
    }

    // MARK: Where the loop runs

    /// A phase begins (`.waiting` when the loop is about to wait for I/O or time).
    @inline(__always)
    package func enter(_ phase: LoopSnapshot.Phase) {
        atomic(.phase).store(Int(phase.code), ordering: .relaxed)
    }

    /// A post phase ran `ran` jobs.
    @inline(__always)
    func didRunPosts(_ ran: Int) {
        add(ran, to: .postsRun)
    }

    /// A timer phase fired `fired` timers.
    @inline(__always)
    func didFireTimers(_ fired: Int) {
        add(fired, to: .timersFired)
    }

    /// The iteration is over: the loop waits for the next one.
    @inline(__always)
    package func endIteration() {
        add(1, to: .iterations)
        enter(.waiting)
    }

    /// A drain deadline released `count` posted jobs unrun.
    func didDiscard(_ count: Int) {
        add(count, to: .discarded)
    }

    /// Only the loop writes: a load and a store, not a read-modify-write.
    @inline(__always)
    private func add(_ value: Int, to slot: Slot) {
        let counter = atomic(slot)
        counter.store(counter.load(ordering: .relaxed) &+ value, ordering: .relaxed)
    }

    // MARK: Any thread

    /// The phase running now (`.waiting` between iterations).
    package var phase: LoopSnapshot.Phase { LoopSnapshot.Phase(code: UInt8(atomic(.phase).load(ordering: .relaxed))) }
    /// Iterations completed.
    package var iterations: Int { atomic(.iterations).load(ordering: .relaxed) }
    /// Posted jobs run, including those run while shutting down.
    package var postsRun: Int { atomic(.postsRun).load(ordering: .relaxed) }
    /// Timer firings.
    package var timersFired: Int { atomic(.timersFired).load(ordering: .relaxed) }
    /// Posted jobs released unrun at a drain deadline.
    package var discarded: Int { atomic(.discarded).load(ordering: .relaxed) }
}

extension LoopSnapshot.Phase {
    private static let all: [Self] = [.waiting, .timers, .posts, .settle, .stopping, .stopped]

    /// The phase as one byte, for an atomic.
    package var code: UInt8 {
        switch self {
        case .waiting: 0
        case .timers: 1
        case .posts: 2
        case .settle: 3
        case .stopping: 4
        case .stopped: 5
        }
    }

    package init(code: UInt8) {
        self = Self.all[Int(code)]
    }
}
