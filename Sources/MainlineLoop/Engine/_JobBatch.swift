/// The loop's side of a `_JobQueue`: the jobs it took in one swap and has not run yet.
///
/// Not thread-safe: owned by one loop and used only where that loop runs (the main actor, or an `EventLoop`'s thread).
///
/// A post phase refills the batch when the previous one has run completely (``refillIfDone(from:budget:)``), then runs
/// at most one budget of it (``next()``). What the budget leaves waits for the loop's next post phase, so every job
/// posted from one thread runs in posting order, and work posted during a phase runs in a later one.
package struct _JobBatch {
    private var slots = ContiguousArray<_JobQueue.Slot>()
    private var index = 0

    package init() {}

    /// Whether every job taken has run (or was released).
    @inline(__always)
    package var isDone: Bool { index == slots.count }

    /// Taken jobs not yet run or released.
    @inline(__always)
    package var remaining: Int { slots.count - index }

    /// When the batch has run completely: gives back storage a burst grew (see `_BatchStorage`) and takes every job
    /// waiting in `queue`. Does nothing while jobs of the previous take remain.
    ///
    /// - Returns: The queue's drain deadline when it is closed with one (and a take happened), else `nil`.
    @inline(__always)
    package mutating func refillIfDone(from queue: _JobQueue, budget: Int) -> _JobQueue.DrainDeadline? {
        guard index == slots.count else { return nil }
        slots.removeAll(keepingCapacity: true)
        index = 0
        _BatchStorage.releaseExcess(of: &slots, budget: budget)
        return queue.takeAll(into: &slots)
    }

    /// The next job to run, taken out of the batch (so it is released as soon as the caller is done with it); `nil`
    /// when the batch is done. Skips jobs released at a drain deadline.
    @inline(__always)
    package mutating func next() -> _JobQueue.Job? {
        while index < slots.count {
            // Not `Optional.take()`: it brings back the per-job reabstraction allocation `Slot` avoids.
            let job = slots[index].job
            slots[index].job = nil
            index += 1
            if let job { return job }
        }
        return nil
    }

    /// Releases, unrun, every posted closure not yet run (executor jobs stay, to run in order); returns how many.
    package mutating func releasePosts() -> Int {
        var released = 0
        for position in index..<slots.count where slots[position].isPost && slots[position].job != nil {
            slots[position].job = nil
            released += 1
        }
        return released
    }

    /// Releases every job not yet run and empties the batch; returns how many were released.
    package mutating func releaseAll() -> Int {
        let released = slots[index...].reduce(0) { $0 + ($1.job == nil ? 0 : 1) }
        slots.removeAll()
        index = 0
        return released
    }

    /// Takes what is still waiting in `queue` and closes it for good (shutdown), after the batch has been released.
    package mutating func takeRemainder(from queue: _JobQueue) {
        precondition(index == slots.count, "BUG DETECTED: the batch must be done before the last take")
        slots.removeAll()
        index = 0
        queue.finishDraining(into: &slots)
    }
}
