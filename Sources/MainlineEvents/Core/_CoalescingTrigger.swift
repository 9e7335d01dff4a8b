import Atomics
import MainlineLoop

/// The thread-safe half of ``CoalescingCallback`` and ``LazySimpleEvent``: turns any number of triggers, from
/// any thread, into one settle-phase delivery on the loop.
///
/// `fire()` is thread-safe; everything else must be called on the main actor.
///
/// - A trigger while a delivery is pending costs one relaxed atomic load: the flag sits inline in the trigger's one
///   object (a ``_FlaggedObject``), which its owner stores inline too, so a pending trigger follows one pointer.
/// - The first trigger after a delivery sets the flag; on the loop's own thread (inside one of its phases) it
///   requests settle directly, so delivery happens in the settle phase of the current iteration; anywhere else
///   it hands the loop its ``Request`` (`Loop.requestSettle(fromAnyThread:)`: no posted job, a wake-up only if the
///   loop sleeps), which the loop resolves in the settle phase of the iteration that sees it — so the loop wakes
///   at most once however many triggers follow.
/// - The owner calls ``willDeliver()`` first thing in its delivery, so a trigger during delivery (or racing it
///   from another thread) schedules exactly one more.
struct _CoalescingTrigger: @unchecked Sendable {
    // @unchecked Sendable: other threads use `loop` (immutable, Sendable) and the storage's atomic flag only;
    // the storage's header is read and written on the main actor alone.
    /// What the trigger knows besides its flag. Protected by the main actor, except `loop` (immutable).
    struct State {
        let loop: any Loop
        /// The notification; `nil` until the owner attached it, and again once cancelled.
        var notification: SettleNotification?
        var isCancelled = false
    }

    /// The state, and the flag: true from the first trigger until the delivery starts; true forever once cancelled.
    private let storage: _FlaggedObject<State>

    /// What another thread hands the loop: resolved on the main actor, weakly, so a pending request does not keep
    /// the owner's storage alive.
    private let request: Request

    private static let requestOnLoop = _MainActorCallback<_FlaggedObject<State>> { request($0) }

    init(loop: any Loop) {
        self.loop = loop
        storage = .make(State(loop: loop))
        request = Request(storage)
    }

    /// The loop that delivers. Thread-safe (immutable; a copy of the state's, so other threads never read the
    /// main-actor header).
    let loop: any Loop

    /// Whether ``cancel()`` was called.
    @MainActor var isCancelled: Bool { storage.unsafeHeader.pointee.isCancelled }

    /// Attaches the notification the owner delivers through (the owner cannot build it before its own `init`
    /// finishes, because the notification captures it weakly).
    @MainActor func attach(_ notification: SettleNotification) {
        storage.unsafeHeader.pointee.notification = notification
    }

    /// Schedules one delivery. Thread-safe; never blocks, never delivers synchronously.
    @inline(__always)
    func fire() {
        if storage.loadFlagRelaxed() { return }
        Self.schedule(storage, loop, request)
    }

    /// The first trigger after a delivery: kept out of line so that `fire()` stays a load and a branch.
    @inline(never)
    private static func schedule(_ storage: _FlaggedObject<State>, _ loop: any Loop, _ request: Request) {
        guard storage.exchangeFlag(expected: false, desired: true) else { return }
        if _RunningLoop.isRunning(loop) {
            requestOnLoop(storage)
        } else if !loop.requestSettle(fromAnyThread: request) {
            // The loop has stopped: nothing will ever be delivered. Keep the flag honest.
            storage.storeFlagReleasing(false)
        }
    }

    /// Must be called by the owner as its delivery begins.
    @MainActor func willDeliver() {
        storage.storeFlagSequentiallyConsistent(false)
    }

    /// Withdraws a pending delivery and ignores every later trigger.
    @MainActor func cancel() {
        storage.unsafeHeader.pointee.isCancelled = true
        storage.storeFlagReleasing(true)
        storage.unsafeHeader.pointee.notification?.cancel()
        storage.unsafeHeader.pointee.notification = nil
    }

    @MainActor private static func request(_ storage: _FlaggedObject<State>) {
        guard !storage.unsafeHeader.pointee.isCancelled, let notification = storage.unsafeHeader.pointee.notification
        else { return }
        if !storage.unsafeHeader.pointee.loop.requestSettle(notification) && !notification.isPending {
            storage.storeFlagReleasing(false)
        }
    }

    /// The trigger as a ``SettleRequest`` another thread hands the loop: one per trigger, made with it, so a request
    /// allocates nothing.
    final class Request: SettleRequest, @unchecked Sendable {
        // @unchecked Sendable: `storage` is immutable and dereferenced only in `notificationToSettle()`, on the main
        // actor (the header's rule); a weak reference is safe to hold on any thread.
        private weak let storage: _FlaggedObject<State>?

        init(_ storage: _FlaggedObject<State>) {
            self.storage = storage
        }

        /// The owner's notification, unless the trigger was cancelled or its owner is gone. Main actor.
        @MainActor func notificationToSettle() -> SettleNotification? {
            guard let storage, !storage.unsafeHeader.pointee.isCancelled else { return nil }
            return storage.unsafeHeader.pointee.notification
        }
    }
}
