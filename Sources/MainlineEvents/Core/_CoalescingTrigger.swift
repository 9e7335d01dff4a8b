import Atomics
import MainlineLoop

/// The thread-safe half of ``CoalescingCallback`` and ``LazySimpleEvent``: turns any number of triggers, from
/// any thread, into one settle-phase delivery on the loop.
///
/// `fire()` is thread-safe; everything else must be called on the main actor.
///
/// - A trigger while a delivery is pending costs one relaxed atomic load.
/// - The first trigger after a delivery sets the flag; on the loop's own thread (inside one of its phases) it
///   requests settle directly, so delivery happens in the settle phase of the current iteration; anywhere else
///   it posts one job that requests settle, so the loop wakes once however many triggers follow.
/// - The owner calls ``willDeliver()`` first thing in its delivery, so a trigger during delivery (or racing it
///   from another thread) schedules exactly one more.
final class _CoalescingTrigger: Sendable {
    let loop: any Loop
    /// True from the first trigger until the delivery starts; true forever once cancelled.
    private let scheduled = ManagedAtomic<Bool>(false)
    /// The notification; `nil` until the owner attached it, and again once cancelled.
    @MainActor private var notification: SettleNotification?
    @MainActor private(set) var isCancelled = false

    private static let requestOnLoop = _MainActorCallback<_CoalescingTrigger> { $0.request() }

    nonisolated init(loop: any Loop) {
        self.loop = loop
    }

    /// Attaches the notification the owner delivers through (the owner cannot build it before its own `init`
    /// finishes, because the notification captures it weakly).
    @MainActor func attach(_ notification: SettleNotification) {
        self.notification = notification
    }

    /// Schedules one delivery. Thread-safe; never blocks, never delivers synchronously.
    @inline(__always)
    func fire() {
        if scheduled.load(ordering: .relaxed) { return }
        schedule()
    }

    /// The first trigger after a delivery: kept out of line so that `fire()` stays a load and a branch.
    @inline(never)
    private func schedule() {
        guard scheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        if _RunningLoop.isRunning(loop) {
            Self.requestOnLoop(self)
        } else if !loop.post({ [weak self] in self?.request() }) {
            // The loop has stopped: nothing will ever be delivered. Keep the flag honest.
            scheduled.store(false, ordering: .releasing)
        }
    }

    /// Must be called by the owner as its delivery begins.
    @MainActor func willDeliver() {
        scheduled.store(false, ordering: .sequentiallyConsistent)
    }

    /// Withdraws a pending delivery and ignores every later trigger.
    @MainActor func cancel() {
        isCancelled = true
        scheduled.store(true, ordering: .releasing)
        notification?.cancel()
        notification = nil
    }

    @MainActor private func request() {
        guard !isCancelled, let notification else { return }
        if !loop.requestSettle(notification) && !notification.isPending {
            scheduled.store(false, ordering: .releasing)
        }
    }
}
