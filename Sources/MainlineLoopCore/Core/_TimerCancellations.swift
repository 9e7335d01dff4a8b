import Atomics

/// How a ``ScheduledTask`` cancelled off the loop reaches the loop: the one lock every main-actor loop's timers share,
/// and the tasks cancelled since a loop last looked.
///
/// All operations are thread-safe, except those marked `@MainActor`.
///
/// A task's heap entry, its body and its queue's dead count belong to the main actor; `cancel()` from another thread
/// must not touch them. So it flips the task's `_TimerState` under ``lock`` (the point where it and the loop's commit
/// of a firing are ordered) and leaves the task here; the loop finishes the job — releases the body on the main actor
/// and counts the entry dead — in ``absorb()``, which every read of a main-actor loop's timers calls first. The list
/// is global rather than per loop because every main-actor loop runs on the one main actor: whichever absorbs finishes
/// every loop's cancellations.
///
/// Steady state allocates nothing: the list and its spare swap buffers and keep their capacity, and an absorb with
/// nothing pending is one atomic load.
package enum _TimerCancellations {
    /// Protects every `ScheduledTask`'s `state`, and ``pending``.
    package static let lock = _Lock()
    // nonisolated(unsafe): protected by `lock`.
    private nonisolated(unsafe) static var pending: [ScheduledTask] = []
    /// Whether `pending` may hold tasks: lets an absorb with nothing to do skip the lock.
    private static let hasPending = ManagedAtomic<Bool>(false)
    /// The buffer an absorb swaps with `pending`, so that neither loses its capacity (protected by the main actor).
    @MainActor private static var spare: [ScheduledTask] = []
    /// Calls ``cancel0`` on the main actor without `assumeIsolated`'s per-call allocation.
    private static let cancelOnLoopCallback = _MainActorCallback<ScheduledTask> { $0.cancel0() }

    /// Cancels `task` on the main actor (the caller checked `_RunningLoop.isOnMainActor`).
    static func cancelOnLoop(_ task: ScheduledTask) {
        cancelOnLoopCallback(task)
    }

    /// Leaves `task`, whose cancellation just won, for the loop. Call with ``lock`` held.
    static func enqueueLocked(_ task: ScheduledTask) {
        pending.append(task)
    }

    /// Called after ``enqueueLocked(_:)``, outside the lock.
    static func didEnqueue() {
        // Stored after the append: an absorb that clears the flag before taking the list can only see more, never less.
        hasPending.store(true, ordering: .releasing)
    }

    /// Finishes every cancellation made off the loop since the last call: releases the bodies here, on the main actor,
    /// and counts the tasks dead in their heaps.
    ///
    /// - Complexity: O(1) with nothing pending (one atomic load); O(k) for k pending cancellations.
    @MainActor
    package static func absorb() {
        // An exchange, not a store: its acquire keeps the lock below from moving before it, so a cancellation that set
        // the flag after this point is either in the list taken below or leaves the flag set for the next absorb.
        guard hasPending.load(ordering: .relaxed), hasPending.exchange(false, ordering: .acquiringAndReleasing) else {
            return
        }
        lock.withLock { swap(&pending, &spare) }
        for task in spare { task.didCancel() }
        spare.removeAll(keepingCapacity: true)
    }
}
