import Atomics

extension EventLoop {
    /// What an event loop's thread has done and is doing, for snapshots taken on any thread: the phase it is in and its
    /// counters. (Its pending posts are the job queue's count, published there at the end of every post phase.)
    ///
    /// All operations on `_Progress` are thread-safe: every value is an atomic that only the loop thread writes
    /// (relaxed load and store, no read-modify-write) and any thread reads (relaxed: a snapshot is a report, not a
    /// synchronization point).
    ///
    /// Written once per phase — never per post or per timer — so that a loop nobody inspects pays a few plain stores
    /// per wake-up.
    final class _Progress: Sendable {
        private let phaseCode = ManagedAtomic<UInt8>(Phase.waiting.code)
        private let iterationCount = ManagedAtomic<Int>(0)
        private let postsRunCount = ManagedAtomic<Int>(0)
        private let timersFiredCount = ManagedAtomic<Int>(0)
        private let discardedCount = ManagedAtomic<Int>(0)

        typealias Phase = LoopSnapshot.Phase

        // MARK: Loop thread

        /// A phase begins.
        @inline(__always)
        func enter(_ phase: Phase) {
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

        /// The loop is about to wait: an iteration is complete.
        @inline(__always)
        func endIteration() {
            add(1, to: iterationCount)
            phaseCode.store(Phase.waiting.code, ordering: .relaxed)
        }

        /// A drain deadline released `count` posted closures unrun.
        func didDiscard(_ count: Int) {
            add(count, to: discardedCount)
        }

        /// Only the loop thread writes: a load and a store, not a read-modify-write.
        @inline(__always)
        private func add(_ value: Int, to counter: ManagedAtomic<Int>) {
            counter.store(counter.load(ordering: .relaxed) &+ value, ordering: .relaxed)
        }

        // MARK: Any thread

        var phase: Phase { Phase(code: phaseCode.load(ordering: .relaxed)) }
        var iterations: Int { iterationCount.load(ordering: .relaxed) }
        var postsRun: Int { postsRunCount.load(ordering: .relaxed) }
        var timersFired: Int { timersFiredCount.load(ordering: .relaxed) }
        var discarded: Int { discardedCount.load(ordering: .relaxed) }
    }
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
