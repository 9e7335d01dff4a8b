/// The loop's side of a `_JobQueue`: the jobs it took in one exchange and has not run yet, in running order.
///
/// Not thread-safe: owned by one loop and used only where that loop runs (the main actor, or an `EventLoop`'s thread).
/// The owner releases what is left with ``releaseAll()`` before it lets go of the batch (a struct has no `deinit`).
///
/// A post phase refills the batch when the previous one has run completely (``refillIfDone(from:)``), then runs at most
/// one budget of it (``next()``). What the budget leaves waits for the loop's next post phase, so every job posted from
/// one thread runs in posting order, and work posted during a phase runs in a later one. Each node goes back to the
/// loop thread's node cache as its job starts, so a steady flood recycles the same few hundred nodes.
package struct _JobBatch {
    /// The next job's node and the last one's: a chain in running order.
    private var first: _JobNode?
    private var last: _JobNode?
    /// Taken jobs not yet run or released.
    package private(set) var remaining = 0
    /// Counted jobs (see `_JobQueue.Slot.counted`) run or released since the last ``reportFinished(to:)``.
    private var finishedCounted = 0

    package init() {}

    /// Whether every job taken has run (or was released).
    @inline(__always)
    package var isDone: Bool { first == nil }

    /// When the batch has run completely, takes every job waiting in `queue`. Does nothing while jobs of the previous
    /// take remain.
    ///
    /// - Returns: The queue's drain deadline when it is closed with one (and a take happened), else `nil`.
    @inline(__always)
    package mutating func refillIfDone(from queue: _JobQueue) -> _JobQueue.DrainDeadline? {
        guard first == nil else { return nil }
        let (newest, deadline) = queue.takeAll()
        append(newest)
        return deadline
    }

    /// Appends a chain taken from a queue (newest first) in running order.
    private mutating func append(_ newest: _JobNode?) {
        guard let newest else { return }
        let chain = _JobNode.reversing(newest)
        if let last { last.following = chain.first } else { first = chain.first }
        last = chain.last
        remaining += chain.count
    }

    /// The next job to run, taken out of the batch (so it is released as soon as the caller is done with it); `nil`
    /// when the batch is done. Skips jobs released at a drain deadline.
    @inline(__always)
    package mutating func next() -> _JobQueue.Job? {
        while let node = first {
            first = node.following
            if first == nil { last = nil }
            remaining -= 1
            let slot = node.giveBack()
            if slot.counted { finishedCounted += 1 }
            if let job = slot.job { return job }
        }
        return nil
    }

    /// Tells `queue` how many counted jobs ran or were released since the last report (a limit's pending count).
    @inline(__always)
    package mutating func reportFinished(to queue: _JobQueue) {
        guard finishedCounted > 0 else { return }
        queue.didFinish(counted: finishedCounted)
        finishedCounted = 0
    }

    /// Marks every job still in the batch as counted (a limit starts); returns how many were not yet.
    mutating func countAllWaiting() -> Int {
        var newlyCounted = 0
        var node = first
        while let current = node {
            if !current.slot.pointee.counted {
                current.slot.pointee.counted = true
                newlyCounted += 1
            }
            node = current.following
        }
        return newlyCounted
    }

    /// Takes what still waits in `queue` too, then releases, unrun, every posted closure not yet run (executor jobs
    /// stay, to run in order); returns how many were released.
    package mutating func releasePosts(alsoWaitingIn queue: _JobQueue) -> Int {
        append(queue.takeAll().newest)
        var released = 0
        var node = first
        while let current = node {
            let slot = current.slot
            if slot.pointee.isPost, slot.pointee.job != nil {
                slot.pointee.job = nil
                released += 1
                if slot.pointee.counted {
                    slot.pointee.counted = false
                    finishedCounted += 1
                }
            }
            node = current.following
        }
        return released
    }

    /// Releases every job not yet run and empties the batch; returns how many were released.
    package mutating func releaseAll() -> Int {
        var released = 0
        while let node = first {
            first = node.following
            let slot = node.giveBack()
            if slot.counted { finishedCounted += 1 }
            if slot.job != nil { released += 1 }
        }
        last = nil
        remaining = 0
        return released
    }

    /// Takes what is still waiting in `queue` and closes it for good (shutdown), after the batch has been released.
    package mutating func takeRemainder(from queue: _JobQueue) {
        precondition(first == nil, "BUG DETECTED: the batch must be done before the last take")
        append(queue.finishDraining())
    }
}
