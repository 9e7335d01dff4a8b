/// A binary min-heap of timers ordered by (deadline, scheduling sequence), with lazy removal of cancelled ones: the
/// one heap both kinds of loop keep their timers in.
///
/// `_DeadlineHeap` is **not** thread-safe: its owner protects it (the main loop's `_TimerQueue` by the main actor, an
/// `EventLoop`'s `_Timers` by its lock). It knows nothing about what a timer is: on each call the owner says whether
/// a timer is still live, and what to do with a dead one the heap lets go of without handing it back (the main loop
/// holds its timers through retained `Unmanaged` references and releases them there).
///
/// Cancelled timers stay in the heap until they reach the top or until more than half of the heap is dead, when it
/// is rebuilt: cancellation is O(1) and dead entries never pile up without bound. Sifts work on the array's buffer
/// directly.
package struct _DeadlineHeap<Timer> {
    fileprivate struct Entry {
        var deadline: Int64
        var sequence: UInt64
        var timer: Timer

        @inline(__always)
        func firesBefore(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0
    /// Dead timers still in `entries`.
    private var deadCount = 0

    /// Creates an empty heap.
    package init() {}

    /// The number of live timers.
    package var count: Int { entries.count - deadCount }

    /// The sequence number the next inserted timer will get: timers with a lower one were inserted before now.
    package var sequenceMark: UInt64 { nextSequence }

    /// Inserts `timer`, due at `deadline` (after every timer already due then).
    ///
    /// - Returns: The timer's sequence number, and whether it is now the earliest entry (so that whoever arms a clock
    ///   for the heap must re-arm). A dead entry still at the top counts as earlier: re-arming for it only wakes the
    ///   loop once early.
    /// - Complexity: O(log n).
    @discardableResult
    package mutating func insert(_ timer: Timer, deadline: Int64) -> (sequence: UInt64, isEarliest: Bool) {
        let sequence = nextSequence
        nextSequence &+= 1
        entries.append(Entry(deadline: deadline, sequence: sequence, timer: timer))
        return (sequence, siftUp(entries.count - 1) == 0)
    }

    /// The deadline of the earliest live timer, dropping dead ones from the top on the way.
    package mutating func nextDeadline(isLive: (Timer) -> Bool, discard: (Timer) -> Void) -> Int64? {
        dropDeadTop(isLive: isLive, discard: discard)
        return entries.first?.deadline
    }

    /// Removes and returns the earliest live timer that is due at `now` and was inserted before `mark`.
    ///
    /// - Complexity: O(log n).
    package mutating func popDue(
        now: Int64,
        insertedBefore mark: UInt64,
        isLive: (Timer) -> Bool,
        discard: (Timer) -> Void
    ) -> Timer? {
        dropDeadTop(isLive: isLive, discard: discard)
        guard let top = entries.first, top.deadline <= now, top.sequence < mark else { return nil }
        removeTop()
        return top.timer
    }

    /// Records that a timer in the heap died (was cancelled); rebuilds the heap when more than half of it is dead.
    package mutating func didCancel(isLive: (Timer) -> Bool, discard: (Timer) -> Void) {
        deadCount += 1
        guard deadCount > 64 && deadCount * 2 > entries.count else { return }
        var live: [Entry] = []
        live.reserveCapacity(entries.count - deadCount)
        for entry in entries {
            if isLive(entry.timer) { live.append(entry) } else { discard(entry.timer) }
        }
        entries = live
        deadCount = 0
        for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    /// The live timers with their deadlines, in the order they will fire: for snapshots.
    ///
    /// - Complexity: O(n log n); the heap is not changed.
    package func liveTimersInFiringOrder(isLive: (Timer) -> Bool) -> [(deadline: Int64, timer: Timer)] {
        entries.filter { isLive($0.timer) }.sorted { $0.firesBefore($1) }.map { ($0.deadline, $0.timer) }
    }

    /// Empties the heap and returns every timer it held, live or dead, in no particular order.
    package mutating func removeAll() -> [Timer] {
        defer {
            entries = []
            deadCount = 0
        }
        return entries.map(\.timer)
    }

    private mutating func dropDeadTop(isLive: (Timer) -> Bool, discard: (Timer) -> Void) {
        while let top = entries.first, !isLive(top.timer) {
            removeTop()
            deadCount -= 1
            discard(top.timer)
        }
    }

    private mutating func removeTop() {
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(0)
        }
    }

    /// Moves the entry at `start` up to its place. Returns where it ended.
    private mutating func siftUp(_ start: Int) -> Int {
        entries.withUnsafeMutableBufferPointer { heap in
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

    private mutating func siftDown(_ start: Int) {
        entries.withUnsafeMutableBufferPointer { heap in
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

extension _DeadlineHeap: Sendable where Timer: Sendable {}
extension _DeadlineHeap.Entry: Sendable where Timer: Sendable {}

/// The next deadline of a fixed-rate timer that was due at `deadline` and fires at `now`: one `interval` later, or,
/// when the loop reached it so late that later deadlines have passed too, the first deadline still ahead of `now`.
///
/// Firing *k* of a fixed-rate timer is due at `start + k × interval`; deadlines the loop missed are skipped (and
/// counted) rather than fired back to back. Saturating: an interval of centuries never wraps to the past.
///
/// - Parameters:
///   - deadline: When the firing being run was due, in nanoseconds on the loop clock.
///   - interval: The timer's period in nanoseconds; positive.
///   - now: The loop clock now.
/// - Returns: The next deadline, and how many deadlines were skipped.
package func _nextFixedRateDeadline(after deadline: Int64, interval: Int64, now: Int64) -> (next: Int64, skipped: Int) {
    let (sum, overflow) = deadline.addingReportingOverflow(interval)
    let next = overflow ? Int64.max : sum
    guard next <= now else { return (next, 0) }
    let (gap, gapOverflow) = now.subtractingReportingOverflow(next)
    guard !gapOverflow else { return (.max, 0) }
    let missed = gap / interval + 1
    let (jump, jumpOverflow) = missed.multipliedReportingOverflow(by: interval)
    let (late, lateOverflow) = next.addingReportingOverflow(jump)
    return (jumpOverflow || lateOverflow ? Int64.max : late, Int(missed))
}

/// A repeating timer's period as both loops use it: positive.
///
/// A period that is not positive is misuse — such a timer would fire on every iteration — reported to `Diagnostics`
/// as `.repeatingTimerInterval` and treated as one nanosecond.
///
/// - Parameters:
///   - interval: The period asked for.
///   - caller: The call that asked, for the message (`"scheduleRepeating"`, `"EventLoop.scheduleRepeating"`).
/// - Returns: `interval`, or one nanosecond.
package func _validRepeatingInterval(_ interval: Duration, caller: StaticString) -> Duration {
    guard interval <= .zero else { return interval }
    Diagnostics.report(
        .repeatingTimerInterval,
        "\(caller)(every: \(interval)) needs a positive interval; a repeating timer without one would fire on every iteration. Using 1 ns."
    )
    return .nanoseconds(1)
}
