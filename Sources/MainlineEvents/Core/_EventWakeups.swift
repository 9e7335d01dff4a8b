import MainlineLoop

/// One observer of a ``SimpleEventObservable`` turned into wake-ups a task can await: the one mechanism under every
/// async sequence of this module — `SimpleEventObservable.notifications` awaits ``wait(isolation:)``; the mailboxes'
/// `values` and `batches` pull with ``next(isolation:taking:)``.
///
/// Created on the main actor. ``wait(isolation:)`` and ``next(isolation:taking:)`` may be awaited from any isolation:
/// they run on the caller's (SE-0421), so a consumer on the main actor never goes through the global executor, and
/// they reach the main actor only to take values and to remove the observer (no hop at all from the main actor).
///
/// Contract:
/// - **Built on the observer list.** It is one token observer of the event, added when it is created, so it is woken
///   by exactly the notifications a block observer added at that moment receives, coalesced the same way. There is no
///   second delivery path.
/// - **At most one pending wake-up.** A notification while no task waits is kept as one pending wake-up; further
///   notifications before a task takes it merge into it. That loses nothing: a notification carries no data, only
///   "look at the state", and a task that looks after the first one sees what the later ones announced. So a slow
///   consumer costs O(1) memory — the same coalescing the event applies to triggers, applied to deliveries.
/// - **Waiters in order.** A notification resumes the task that has waited longest; several tasks awaiting one
///   instance share its wake-ups (each goes to one of them).
/// - **Resumed from the loop.** A notification resumes its waiter inside the observer callback, a loop phase on the main
///   actor; the end of the event, inside the event's `isolated deinit`, on the main actor too. The resumed task runs on
///   its own executor. Only cancellation resumes from the cancelling thread (as `AsyncStream` does): resuming only
///   enqueues the task on its executor, it runs no consumer code there.
/// - **Ending.** The wake-ups end when the event is freed (a pending wake-up is still handed out first: nothing is
///   lost), or when a task awaiting them is cancelled or asks while cancelled (at once; a pending wake-up is dropped,
///   as the consumer is gone). Ending resumes every waiting task with "ended", answers "ended" from then on, and
///   removes the observer. The observer is removed at the latest when the wake-ups are freed (the token goes with
///   them), so nothing is kept forever.
/// - **Thread-safety.** All state but the token is under `lock`: notifications and the end of the event arrive on the
///   main actor, cancellation on any thread, waiters on any isolation.
package final class _EventWakeups: @unchecked Sendable {
    // @unchecked Sendable: `state` is read and written only while `lock` is held; `token` only on the main actor.

    /// Why the wake-ups ended.
    private enum Ending {
        /// The event was freed: a pending wake-up is still handed out.
        case eventFreed
        /// A consumer was cancelled: nothing more is handed out.
        case cancelled
    }

    /// Invariant: `pending` implies no waiters (a notification resumes a waiter rather than pend); `ending` set implies
    /// no waiters (ending resumes them all).
    private struct State {
        /// A notification arrived that no task has taken yet.
        var pending = false
        var ending: Ending?
        /// Tasks suspended in `wait`, longest waiting first. A cancellation ends the wake-ups and so resumes them all:
        /// no waiter needs finding on its own.
        var waiters: [UnsafeContinuation<Bool, Never>] = []
    }

    /// What `wait` found without suspending.
    private enum Answer {
        case woken, ended, mustWait
    }

    private let lock = _Lock()
    /// Protected by `lock`.
    private var state = State()
    /// The observer's token; `nil` once the wake-ups ended. Protected by the main actor.
    @MainActor private var token: SimpleEventToken?

    /// Subscribes to `event`: from now on its notifications are wake-ups.
    ///
    /// When `event` is one of Mainline's (or forwards `addObserver` to one), the wake-ups end when that event is freed;
    /// an event of another kind never ends them by itself.
    @MainActor
    package init(_ event: SimpleEventObservable) {
        event.addObserver(&token) { [weak self] _ in self?.notified() }
        (token as? _SimpleEventSubscription)?.whenEventGoes { [weak self] in self?.eventFreed() }
    }

    // MARK: Consumers

    /// Waits for a notification: returns `true` for one (taking a pending one at once), `false` once the wake-ups
    /// ended — the event was freed and nothing is pending, or the task is (or gets) cancelled, which ends them.
    ///
    /// Runs on the caller's isolation (SE-0421); awaitable from any.
    package func wait(isolation actor: isolated (any Actor)? = #isolation) async -> Bool {
        if Task.isCancelled { return await cancelled(isolation: actor) }
        switch lock.withLock({ answerNow() }) {
        case .woken: return true
        case .ended: return await ended(isolation: actor)
        case .mustWait: break
        }
        let woken = await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: actor) { (continuation: UnsafeContinuation<Bool, Never>) in
                // Asked again under the lock: a notification (from the main actor, when the caller is elsewhere) or a
                // cancellation may have come since. If cancelled already, the handler ran first and ended the wake-ups.
                let answer: Bool? = lock.withLock {
                    switch answerNow() {
                    case .woken: return true
                    case .ended: return false
                    case .mustWait:
                        state.waiters.append(continuation)
                        return nil
                    }
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            self.end(.cancelled)
        }
        return woken ? true : await ended(isolation: actor)
    }

    /// Pulls the next element: asks `take` (on the main actor) first, and again after every wake-up, until it returns
    /// an element; returns `nil` once the wake-ups ended and `take` has nothing, and at once when the task is
    /// cancelled (ending the wake-ups). Elements stay wherever `take` takes them from until a task asks: the wake-ups
    /// buffer nothing but the one pending wake-up.
    ///
    /// Runs on the caller's isolation (SE-0421); awaitable from any; `take` runs on the main actor (no hop from it).
    ///
    /// - Parameter take: Takes one element from its source, or says `nil` when there is none now.
    package func next<Element: Sendable>(
        isolation actor: isolated (any Actor)? = #isolation,
        taking take: @MainActor @Sendable () -> Element?
    ) async -> Element? {
        while true {
            if Task.isCancelled {
                _ = await cancelled(isolation: actor)
                return nil
            }
            if lock.withLock({ state.ending == .cancelled }) { return nil }
            if let element = await take() { return element }
            guard await wait(isolation: actor) else { return nil }
        }
    }

    // MARK: The observer's side (main actor)

    /// A notification: resumes the longest waiting task, or leaves one pending wake-up.
    @MainActor
    private func notified() {
        let waiter: UnsafeContinuation<Bool, Never>? = lock.withLock {
            guard state.ending == nil else { return nil }
            guard !state.waiters.isEmpty else {
                state.pending = true
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: true)
    }

    /// The event was freed: no notification will come again.
    @MainActor
    private func eventFreed() {
        end(.eventFreed)
        token = nil
    }

    // MARK: Internals

    /// What `wait` can answer without suspending. Call with `lock` held.
    private func answerNow() -> Answer {
        if state.pending {
            state.pending = false
            return .woken
        }
        return state.ending == nil ? .mustWait : .ended
    }

    /// Ends the wake-ups (the first reason stays) and resumes every waiting task with "ended". Thread-safe.
    private func end(_ ending: Ending) {
        let waiters = lock.withLock {
            if state.ending == nil { state.ending = ending }
            if ending == .cancelled { state.pending = false }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: false) }
    }

    /// The caller's task is cancelled: ends the wake-ups and answers "ended". Runs on the caller's isolation.
    private func cancelled(isolation actor: isolated (any Actor)?) async -> Bool {
        end(.cancelled)
        return await ended(isolation: actor)
    }

    /// Answers "ended", removing the observer on the main actor first (no hop from the main actor). Runs on the
    /// caller's isolation: a plain `async` helper would go through the global executor.
    private func ended(isolation actor: isolated (any Actor)?) async -> Bool {
        await removeObserver()
        return false
    }

    @MainActor
    private func removeObserver() {
        token = nil
    }

    /// Whether the observer is still installed (for tests).
    @MainActor
    var isObserving: Bool { token != nil }
}
