/// The main loop's timers: a `_DeadlineHeap` of `ScheduledTask`s.
///
/// Must be used on the main actor (protected by the loop).
///
/// The heap owns each task through one retained `Unmanaged` reference, taken on insert and given back when the entry
/// leaves the heap (popped, dropped dead from the top, compacted away, or at shutdown), so moving entries during a
/// sift costs no reference counting. Measured: firing 100k timers takes half the time it did with strong entries.
///
/// An entry is live while its task's `isInHeap` is set: liveness is the loop's own view, changed only on the main
/// actor, so the heap's dead count stays exact even while other threads cancel. Their cancellations reach the heap
/// through `_TimerCancellations.absorb()`, which every read below calls first.
@MainActor
package final class _TimerQueue {
    // Unchecked exclusivity: main-actor state that no access holds across a call out — the heap's `isLive` only reads,
    // and its `discard` releases only dead tasks, whose bodies were already released, so no user code runs inside an
    // access. The dynamic checks were a measurable part of scheduling a timer (Benchmarks/HISTORY.md, "Speed").
    @exclusivity(unchecked) private var heap = _DeadlineHeap<Unmanaged<ScheduledTask>>()

    nonisolated init() {}

    // Isolated: the tasks still in the heap are told, on the main actor, that they left it (their `isInHeap` guards
    // their unowned(unsafe) reference to this queue), wherever the last reference to the queue went.
    isolated deinit {
        for entry in heap.removeAll() {
            let task = entry.takeRetainedValue()
            task.isInHeap = false
            task.queue = nil
        }
    }

    /// The number of scheduled (not cancelled) timers.
    package var count: Int {
        _TimerCancellations.absorb()
        return heap.count
    }

    /// The sequence number the next scheduled timer will get: timers with a lower one were scheduled before now.
    package var sequenceMark: UInt64 { heap.sequenceMark }

    /// The deadline of the earliest live timer.
    package var nextDeadline: LoopInstant? {
        _TimerCancellations.absorb()
        return heap.nextDeadline(isLive: Self.isLive, discard: Self.discard).map(LoopInstant.init(nanoseconds:))
    }

    /// Inserts `task`, due at its `deadline`.
    ///
    /// - Returns: Whether `task` is now the earliest entry (see `_DeadlineHeap.insert`).
    /// - Complexity: O(log n).
    @discardableResult
    package func insert(_ task: ScheduledTask) -> Bool {
        task.queue = self
        task.isInHeap = true
        let (sequence, isEarliest) = heap.insert(.passRetained(task), deadline: task.deadline.nanoseconds)
        task.sequence = sequence
        return isEarliest
    }

    /// Removes and returns the earliest live task that is due at `now` and was scheduled before `mark`.
    ///
    /// The task is no longer an entry of the heap; whether it may still fire is the caller's question
    /// (`ScheduledTask.commitFiring()`): another thread may have cancelled it since the last absorb.
    ///
    /// - Complexity: O(log n).
    package func popDue(now: LoopInstant, scheduledBefore mark: UInt64) -> ScheduledTask? {
        guard
            let task = heap.popDue(
                now: now.nanoseconds,
                insertedBefore: mark,
                isLive: Self.isLive,
                discard: Self.discard
            )?
            .takeRetainedValue()
        else { return nil }
        task.isInHeap = false
        return task
    }

    /// The scheduled timers in firing order, for a snapshot.
    ///
    /// - Complexity: O(n log n).
    package func snapshot() -> [LoopSnapshot.Timer] {
        _TimerCancellations.absorb()
        return heap.liveTimersInFiringOrder(isLive: Self.isLive).map { entry in
            let task = entry.timer.takeUnretainedValue()
            return LoopSnapshot.Timer(
                label: task.site.label,
                site: task.site,
                deadline: task.deadline,
                interval: task.interval,
                firings: task.firings,
                skippedFirings: task.skippedFirings
            )
        }
    }

    /// Cancels every task (used at shutdown).
    func cancelAll() {
        for entry in heap.removeAll() {
            let task = entry.takeRetainedValue()
            task.isInHeap = false  // the heap is already empty: no compaction bookkeeping
            task.cancel0()
        }
    }

    /// Called by a task in the heap when it is cancelled.
    package func didCancel() {
        heap.didCancel(isLive: Self.isLive, discard: Self.discard)
    }

    private static func isLive(_ task: Unmanaged<ScheduledTask>) -> Bool {
        task._withUnsafeGuaranteedRef { $0.isInHeap }
    }

    private static func discard(_ task: Unmanaged<ScheduledTask>) {
        task.release()
    }
}
