/// The loop's timers: a binary min-heap ordered by (deadline, scheduling sequence).
///
/// Must be used on the main actor (protected by the loop).
///
/// Cancelled tasks stay in the heap until they reach the top or until more than half of the heap is cancelled,
/// when it is rebuilt: cancellation is O(1) and the heap never grows with dead entries unboundedly.
///
/// The heap owns each task through one retained `Unmanaged` reference (taken on insert, given back when the entry
/// leaves the heap), so moving entries during a sift is a plain copy with no reference counting; sifts work on the
/// array's buffer directly. Measured: these two halve the cost of scheduling a timer.
@MainActor
final class _TimerQueue {
    nonisolated init() {}

    deinit {
        // The last reference is gone, so nothing else can touch the heap: give back the heap's references.
        for entry in heap { entry.task.release() }
    }

    private struct Entry {
        var deadline: Int64
        var sequence: UInt64
        /// +1 retained while the entry is in the heap.
        var task: Unmanaged<ScheduledTask>

        @inline(__always)
        func firesBefore(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }

        @MainActor var isLive: Bool { task._withUnsafeGuaranteedRef { $0.state == .scheduled } }
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
        heap.append(Entry(deadline: task.deadline.nanoseconds, sequence: task.sequence, task: .passRetained(task)))
        return siftUp(heap.count - 1) == 0
    }

    /// Removes and returns the earliest live task that is due at `now` and was scheduled before `mark`.
    ///
    /// - Complexity: O(log n).
    func popDue(now: LoopInstant, scheduledBefore mark: UInt64) -> ScheduledTask? {
        dropCancelledTop()
        guard let top = heap.first, top.deadline <= now.nanoseconds, top.sequence < mark else { return nil }
        removeTop()
        return top.task.takeRetainedValue()
    }

    /// Cancels every task (used at shutdown).
    func cancelAll() {
        let entries = heap
        heap.removeAll()
        cancelledInHeap = 0
        for entry in entries {
            let task = entry.task.takeRetainedValue()
            task.queue = nil  // the heap is already empty: no compaction bookkeeping
            task.cancel()
        }
    }

    /// Called by a task in the heap when it is cancelled.
    func didCancel() {
        cancelledInHeap += 1
        guard cancelledInHeap > 64 && cancelledInHeap * 2 > heap.count else { return }
        var live: [Entry] = []
        live.reserveCapacity(heap.count - cancelledInHeap)
        for entry in heap {
            if entry.isLive { live.append(entry) } else { entry.task.release() }
        }
        heap = live
        cancelledInHeap = 0
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private func dropCancelledTop() {
        while let top = heap.first, !top.isLive {
            removeTop()
            top.task.release()
            cancelledInHeap -= 1
        }
    }

    /// Removes the top entry without releasing its task (the caller takes over the heap's reference).
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
        heap.withUnsafeMutableBufferPointer { heap in
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
    }

    private func siftDown(_ start: Int) {
        heap.withUnsafeMutableBufferPointer { heap in
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
}
