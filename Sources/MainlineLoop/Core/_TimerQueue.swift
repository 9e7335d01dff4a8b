/// The loop's timers: a binary min-heap ordered by (deadline, scheduling sequence).
///
/// Must be used on the main actor (protected by the loop).
///
/// Cancelled tasks stay in the heap until they reach the top or until more than half of the heap is cancelled,
/// when it is rebuilt: cancellation is O(1) and the heap never grows with dead entries unboundedly.
@MainActor
final class _TimerQueue {
    nonisolated init() {}

    private struct Entry {
        var deadline: Int64
        var sequence: UInt64
        var task: ScheduledTask

        @inline(__always)
        func firesBefore(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0
    /// Cancelled tasks still in `heap`.
    private var cancelledInHeap = 0

    /// The number of scheduled (not cancelled) timers.
    var count: Int { heap.count - cancelledInHeap }

    /// The sequence number the next scheduled timer will get: timers with a lower one were scheduled before now.
    var sequenceMark: UInt64 { nextSequence }

    /// The deadline of the earliest live timer.
    var nextDeadline: LoopInstant? {
        dropCancelledTop()
        return heap.first.map { LoopInstant(nanoseconds: $0.deadline) }
    }

    /// Inserts `task`, due at its `deadline`.
    ///
    /// - Returns: Whether `task` is now the earliest entry (so whoever arms a clock for the queue must re-arm).
    ///   A cancelled entry still at the top counts as earlier: re-arming for it only wakes the loop once early.
    /// - Complexity: O(log n).
    @discardableResult
    func insert(_ task: ScheduledTask) -> Bool {
        task.sequence = nextSequence
        nextSequence &+= 1
        task.queue = self
        heap.append(Entry(deadline: task.deadline.nanoseconds, sequence: task.sequence, task: task))
        return siftUp(heap.count - 1) == 0
    }

    /// Removes and returns the earliest live task that is due at `now` and was scheduled before `mark`.
    ///
    /// - Complexity: O(log n).
    func popDue(now: LoopInstant, scheduledBefore mark: UInt64) -> ScheduledTask? {
        dropCancelledTop()
        guard let top = heap.first, top.deadline <= now.nanoseconds, top.sequence < mark else { return nil }
        removeTop()
        return top.task
    }

    /// Cancels every task (used at shutdown).
    func cancelAll() {
        let entries = heap
        heap.removeAll()
        cancelledInHeap = 0
        for entry in entries {
            entry.task.queue = nil  // the heap is already empty: no compaction bookkeeping
            entry.task.cancel()
        }
    }

    /// Called by a task in the heap when it is cancelled.
    func didCancel() {
        cancelledInHeap += 1
        if cancelledInHeap > 64 && cancelledInHeap * 2 > heap.count {
            heap.removeAll { $0.task.state != .scheduled }
            cancelledInHeap = 0
            for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        }
    }

    private func dropCancelledTop() {
        while let top = heap.first, top.task.state != .scheduled {
            removeTop()
            cancelledInHeap -= 1
        }
    }

    private func removeTop() {
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
    }

    /// Moves the entry at `start` up to its place. Returns where it ended.
    @discardableResult
    private func siftUp(_ start: Int) -> Int {
        var child = start
        let entry = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.firesBefore(heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = entry
        return child
    }

    private func siftDown(_ start: Int) {
        var parent = start
        let entry = heap[parent]
        let count = heap.count
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count && heap[child + 1].firesBefore(heap[child]) { child += 1 }
            guard heap[child].firesBefore(entry) else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = entry
    }
}
