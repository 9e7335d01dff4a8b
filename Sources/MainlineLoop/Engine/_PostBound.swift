/// What the job queue (`_JobQueue`) keeps beside its array so that a
/// burst neither grows without bound nor keeps its memory: the optional limit on pending posts, and how many posts
/// the limit refused.
///
/// Not thread-safe: each queue keeps it under its own lock.
///
/// "Pending" is what producers have handed over and the loop has not run yet: the queue's `incoming` array plus what
/// the loop has taken into its batch and not yet run (``taken``). The queue knows the first; the loop tells it the
/// second after each post phase, and only when a limit is set (``isTracking``), so unlimited loops pay nothing.
package struct _PostBound {
    /// At most this many posts may be pending; `nil`: no limit.
    package var limit: Int?
    /// Posts the loop took into its batch and had not run when it last said so.
    package var taken = 0
    /// Posts refused because the limit was reached, since the queue was created.
    package private(set) var rejected = 0

    package init(limit: Int?) {
        self.limit = limit
    }

    /// Whether the loop must report what it still holds after each post phase.
    @inline(__always)
    package var isTracking: Bool { limit != nil }

    /// Whether one more post fits next to `incoming` waiting ones; counts a refusal when it does not.
    @inline(__always)
    package mutating func admits(incoming: Int) -> Bool {
        guard let limit else { return true }
        if incoming + taken < limit { return true }
        rejected += 1
        return false
    }
}

/// Gives back the storage of a post batch that a burst grew far beyond what one iteration needs.
///
/// Called by a loop on its own batch, right after the batch has run completely (it is empty then). A queue swaps its
/// arrays rather than copying them, so a burst's capacity would otherwise live on in both arrays for the life of the
/// loop (measured: 8 × 1,000,000 posts to a blocked loop kept 473 of 520 MB after the drain).
package enum _BatchStorage {
    /// A batch keeps its storage while its capacity is at most this many times the per-iteration budget.
    package static let keptBudgets = 8

    /// Replaces `batch`'s storage with a budget-sized one when its capacity is far above `budget`. Returns whether
    /// it released anything.
    ///
    /// What the closures of a burst took is freed job by job as they run; this gives back the arrays that held them.
    /// (glibc keeps freed small chunks of other threads' arenas for reuse rather than returning them to the system,
    /// so a process's resident size stays above its baseline after a burst even though nothing is in use; a second
    /// burst reuses that memory instead of growing.)
    ///
    /// - Parameters:
    ///   - batch: The loop's batch, empty (everything in it has run or was released).
    ///   - budget: The posts one iteration runs.
    @discardableResult
    package static func releaseExcess<Slot>(of batch: inout ContiguousArray<Slot>, budget: Int) -> Bool {
        let kept = max(budget, 256) * keptBudgets
        guard batch.capacity > kept else { return false }
        batch = ContiguousArray()
        batch.reserveCapacity(min(budget, kept))
        return true
    }
}
