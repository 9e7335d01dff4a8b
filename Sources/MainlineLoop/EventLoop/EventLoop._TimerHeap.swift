extension EventLoop {
    /// An event loop's timers: a binary min-heap ordered by (deadline, scheduling sequence).
    ///
    /// A value type with no synchronization of its own: `_Timers` keeps it under its lock.
    ///
    /// Cancelled tasks stay in the heap until they reach the top or until more than half of the heap is cancelled,
    /// when it is rebuilt: cancellation is O(1) and dead entries never pile up without bound. The same shape as the
    /// main loop's `_TimerQueue`, which is main-actor isolated and typed for `ScheduledTask`.
    struct _TimerHeap {
        private struct Entry {
            var deadline: Int64
            var sequence: UInt64
            var task: Scheduled

            @inline(__always)
            func firesBefore(_ other: Entry) -> Bool {
                deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
            }
        }

        private var heap: [Entry] = []
        private var nextSequence: UInt64 = 0
        /// Cancelled tasks still in `heap`.
        private var cancelledInHeap = 0

        /// The sequence number the next inserted task will get: tasks with a lower one were inserted before now.
        var sequenceMark: UInt64 { nextSequence }

        /// The deadline of the earliest live task (drops cancelled tasks from the top on the way).
        mutating func nextDeadline() -> Int64? {
            dropCancelledTop()
            return heap.first?.deadline
        }

        /// Inserts `task` (which must be scheduled) at its `deadline`, after every task already due then.
        ///
        /// - Complexity: O(log n).
        mutating func insert(_ task: Scheduled) {
            task.sequence = nextSequence
            nextSequence &+= 1
            heap.append(Entry(deadline: task.nanosecondDeadline, sequence: task.sequence, task: task))
            siftUp(heap.count - 1)
        }

        /// Removes and returns the earliest live task due at `now` that was inserted before `mark`.
        ///
        /// - Complexity: O(log n).
        mutating func popDue(now: Int64, insertedBefore mark: UInt64) -> Scheduled? {
            dropCancelledTop()
            guard let top = heap.first, top.deadline <= now, top.sequence < mark else { return nil }
            removeTop()
            return top.task
        }

        /// Records that a task in the heap was cancelled; rebuilds the heap when most of it is dead.
        mutating func didCancel() {
            cancelledInHeap += 1
            if cancelledInHeap > 64 && cancelledInHeap * 2 > heap.count {
                heap.removeAll { !$0.task.isInHeap }
                cancelledInHeap = 0
                for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
            }
        }

        /// Empties the heap and returns the live tasks it held, in no particular order.
        mutating func removeAll() -> [Scheduled] {
            let live = heap.lazy.map(\.task).filter(\.isInHeap)
            defer {
                heap = []
                cancelledInHeap = 0
            }
            return Array(live)
        }

        private mutating func dropCancelledTop() {
            while let top = heap.first, !top.task.isInHeap {
                removeTop()
                cancelledInHeap -= 1
            }
        }

        private mutating func removeTop() {
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                siftDown(0)
            }
        }

        private mutating func siftUp(_ start: Int) {
            var child = start
            let entry = heap[child]
            while child > 0 {
                let parent = (child - 1) / 2
                guard entry.firesBefore(heap[parent]) else { break }
                heap[child] = heap[parent]
                child = parent
            }
            heap[child] = entry
        }

        private mutating func siftDown(_ start: Int) {
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
