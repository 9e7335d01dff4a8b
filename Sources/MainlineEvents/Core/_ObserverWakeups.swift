import MainlineLoop

/// One observer turned into wake-ups a task can await, each carrying the newest value the observer was called with:
/// the one bridge from an observer to an `AsyncSequence` — under `SimpleEventObservable.notifications` and the
/// mailboxes' `values` and `batches` (`Value` is `Void`: a notification says only "look at the state"), and under the
/// observables' and `DataCache`'s `values` (`ObservedValues`, in MainlineObservables: `Value` is the observed value).
///
/// Created on the main actor. ``next(isolation:)`` and ``next(isolation:taking:)`` may be awaited from any isolation:
/// they run on the caller's (SE-0421), so a consumer on the main actor never goes through the global executor, and
/// they reach the main actor only to take elements and to remove an event's observer (no hop at all from the main
/// actor).
///
/// Contract:
/// - **Built on the observer list.** It is one observer of its source, added when it is created — a token observer
///   of an event (``init(_:)``), or the value observer `observe` registers (``init(skipInitial:owner:observe:)``) — so
///   it is woken by exactly the calls an observer added at that moment receives, coalesced the same way. There is no
///   second delivery path.
/// - **At most one pending wake-up, holding the newest value.** A call while no task waits is kept as one pending
///   wake-up; further calls before a task takes it replace its value. That loses nothing a consumer needs: an event's
///   notification carries no data, and an observable's values are state, so the consumer sees the latest (a slow one
///   skips intermediate values, never the newest). So a slow consumer costs O(1) memory.
/// - **Waiters in order.** A call resumes the task that has waited longest, with its value; several tasks awaiting one
///   instance share its wake-ups (each goes to one of them).
/// - **Resumed from the loop.** A call resumes its waiter inside the observer callback, on the main actor; the end of
///   an event inside its `isolated deinit`, on the main actor too; an owner's ``_WakeupsOwner/endAll()`` on the thread
///   that calls it. The resumed task runs on its own executor. Cancellation resumes from the cancelling thread (as
///   `AsyncStream` does): resuming only enqueues the task on its executor, it runs no consumer code there.
/// - **Ending.** The wake-ups end when the source ends — the event is freed, or the owner ends them — and then a
///   pending wake-up is still handed out first: nothing is lost; or when a task awaiting them is cancelled or asks
///   while cancelled (at once; a pending wake-up is dropped, as the consumer is gone). Ending resumes every waiting
///   task with "ended", answers "ended" from then on, and removes the observer. The observer is removed at the latest
///   when the wake-ups are freed, so nothing is kept forever.
/// - **Thread-safety.** All state but the event's token is under `lock`: calls and the end of an event arrive on the
///   main actor, an owner's end and cancellation on any thread, waiters on any isolation.
package final class _ObserverWakeups<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `state` is read and written only while `lock` is held; `token` only on the main actor;
    // `owner` is immutable (and Sendable).

    /// Why the wake-ups ended.
    private enum Ending {
        /// The source ended (the event was freed, or the owner ended the wake-ups): a pending wake-up is still handed
        /// out.
        case sourceEnded
        /// A consumer was cancelled: nothing more is handed out.
        case cancelled
    }

    /// Invariant: `pending` set implies no waiters (a call resumes a waiter rather than pend); `ending` set implies no
    /// waiters (ending resumes them all).
    private struct State {
        /// The newest value of a call that no task has taken yet.
        var pending: Value?
        var ending: Ending?
        /// Tasks suspended in `next`, longest waiting first, each resumed with a value or `nil` for "ended". A
        /// cancellation ends the wake-ups and so resumes them all: no waiter needs finding on its own.
        var waiters: [UnsafeContinuation<Value?, Never>] = []
        /// Ends a value observer (`init(skipInitial:owner:observe:)`), callable from any thread; taken (set to `nil`)
        /// by the first that calls it.
        var stopObserving: (@Sendable () -> Void)?
    }

    /// What `next` found without suspending.
    private enum Answer {
        case value(Value)
        case ended
        case mustWait
    }

    private let lock = _Lock()
    /// Protected by `lock`.
    private var state = State()
    /// An event observer's token; `nil` once the wake-ups ended, and for a value observer. Protected by the main actor.
    @MainActor private var token: SimpleEventToken?
    /// The owner that may end the wake-ups, and the key they are registered under there. Immutable.
    private let owner: (owner: _WakeupsOwner, key: Int)?

    /// Subscribes to `event`: from now on its notifications are wake-ups.
    ///
    /// When `event` is one of Mainline's (or forwards `addObserver` to one), the wake-ups end when that event is freed;
    /// an event of another kind never ends them by itself.
    @MainActor
    package init(_ event: SimpleEventObservable) where Value == Void {
        owner = nil
        event.addObserver(&token) { [weak self] _ in self?.called(with: ()) }
        (token as? _SimpleEventSubscription)?.whenEventGoes { [weak self] in self?.eventFreed() }
    }

    /// Observes values through `observe`: from now on each value it is called with is a wake-up carrying it.
    ///
    /// - Parameters:
    ///   - skipInitial: `true` to leave out the first value, the one `observe` delivers before it returns (an
    ///     observable's current value).
    ///   - owner: What can end the wake-ups (``_WakeupsOwner/endAll()``) when whatever owns the source goes; `nil`
    ///     when they end only with their consumers.
    ///   - observe: Registers the observer (called on the main actor), returning what ends it — callable once, from
    ///     any thread.
    @MainActor
    package init(
        skipInitial: Bool = false,
        owner: _WakeupsOwner? = nil,
        observe: (@escaping @MainActor (Value) -> Void) -> @Sendable () -> Void
    ) {
        let key = owner?.makeKey()
        self.owner = owner.map { ($0, key!) }
        var skipping = skipInitial
        let stop = observe { [weak self] value in
            // The first call is the current value, made before `observe` returns.
            if skipping {
                skipping = false
            } else {
                self?.called(with: value)
            }
        }
        skipping = false
        lock.withLock { state.stopObserving = stop }
        owner?.register(key!) { [weak self] in self?.end(.sourceEnded) }
    }

    deinit {
        // No waiter can remain: a waiting task holds the wake-ups.
        if let owner { owner.owner.remove(owner.key) }
        state.stopObserving?()
    }

    // MARK: Consumers

    /// Waits for a wake-up: returns its value (taking a pending one at once), `nil` once the wake-ups ended — the
    /// source ended and nothing is pending, or the task is (or gets) cancelled, which ends them.
    ///
    /// Runs on the caller's isolation (SE-0421); awaitable from any.
    package func next(isolation actor: isolated (any Actor)? = #isolation) async -> Value? {
        if Task.isCancelled { return await cancelled(isolation: actor) }
        switch lock.withLock({ answerNow() }) {
        case .value(let value): return value
        case .ended: return await ended(isolation: actor)
        case .mustWait: break
        }
        let woken = await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: actor) { (continuation: UnsafeContinuation<Value?, Never>) in
                // Asked again under the lock: a call (from the main actor, when the caller is elsewhere), an end or a
                // cancellation may have come since. If cancelled already, the handler ran first and ended the
                // wake-ups.
                let answer: Value?? = lock.withLock {
                    switch answerNow() {
                    case .value(let value): return .some(value)
                    case .ended: return .some(nil)
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
        if let woken { return woken }
        return await ended(isolation: actor)
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
    ) async -> Element? where Value == Void {
        while true {
            if Task.isCancelled {
                _ = await cancelled(isolation: actor)
                return nil
            }
            if lock.withLock({ state.ending == .cancelled }) { return nil }
            if let element = await take() { return element }
            guard await next(isolation: actor) != nil else { return nil }
        }
    }

    // MARK: The observer's side (main actor)

    /// A call of the observer: resumes the longest waiting task with `value`, or makes `value` the pending wake-up.
    @MainActor
    private func called(with value: Value) {
        let waiter: UnsafeContinuation<Value?, Never>? = lock.withLock {
            guard state.ending == nil else { return nil }
            guard !state.waiters.isEmpty else {
                state.pending = value
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: value)
    }

    /// The event was freed: no notification will come again.
    @MainActor
    private func eventFreed() {
        end(.sourceEnded)
        token = nil
    }

    // MARK: Internals

    /// What `next` can answer without suspending. Call with `lock` held.
    private func answerNow() -> Answer {
        if let value = state.pending {
            state.pending = nil
            return .value(value)
        }
        return state.ending == nil ? .mustWait : .ended
    }

    /// Ends the wake-ups (the first reason stays), resumes every waiting task with "ended", and ends a value observer
    /// (an event's token is removed on the main actor, by `ended` or `eventFreed`). Thread-safe.
    private func end(_ ending: Ending) {
        let (waiters, stop) = lock.withLock {
            if state.ending == nil { state.ending = ending }
            if ending == .cancelled { state.pending = nil }
            defer {
                state.waiters.removeAll()
                state.stopObserving = nil
            }
            return (state.waiters, state.stopObserving)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        stop?()
        if let owner { owner.owner.remove(owner.key) }
    }

    /// The caller's task is cancelled: ends the wake-ups and answers "ended". Runs on the caller's isolation.
    private func cancelled(isolation actor: isolated (any Actor)?) async -> Value? {
        end(.cancelled)
        return await ended(isolation: actor)
    }

    /// Answers "ended", removing the observer on the main actor first (no hop from the main actor). Runs on the
    /// caller's isolation: a plain `async` helper would go through the global executor.
    private func ended(isolation actor: isolated (any Actor)?) async -> Value? {
        await removeObserver()
        return nil
    }

    @MainActor
    private func removeObserver() {
        token = nil
        let stop = lock.withLock {
            defer { state.stopObserving = nil }
            return state.stopObserving
        }
        stop?()
    }

    /// Whether the observer is still installed (for tests).
    @MainActor
    var isObserving: Bool { token != nil || lock.withLock { state.stopObserving != nil } }

    /// How many tasks are suspended in `next` (for tests).
    var waiterCount: Int { lock.withLock { state.waiters.count } }
}

/// The wake-ups an owner (a `DataCache`) has handed out with ``_ObserverWakeups/init(skipInitial:owner:observe:)``,
/// so that it can end them when it goes (``endAll()``): each still hands out its pending value first. Wake-ups leave
/// it when they end or are freed; it holds them weakly.
///
/// All operations on `_WakeupsOwner` are thread-safe: an owner's `deinit` may run on any thread, and wake-ups end on
/// the thread of the task that consumed them.
package final class _WakeupsOwner: Sendable {
    // Protected by `_Locked`'s lock. `enders` is `nil` once `endAll()` ran.
    private let state = _Locked((nextKey: 0, enders: [Int: @Sendable () -> Void]?.some([:])))

    /// Creates an owner with no wake-ups. Thread-safe.
    package init() {}

    /// A key to register wake-ups under.
    fileprivate func makeKey() -> Int {
        state.withLock { state in
            defer { state.nextKey += 1 }
            return state.nextKey
        }
    }

    /// Registers what ends the wake-ups of `key`; runs it at once when ``endAll()`` already ran.
    fileprivate func register(_ key: Int, ender: @escaping @Sendable () -> Void) {
        let registered = state.withLock { state in
            state.enders?[key] = ender
            return state.enders != nil
        }
        if !registered { ender() }
    }

    /// Forgets the wake-ups of `key` (they ended or were freed).
    fileprivate func remove(_ key: Int) {
        state.withLock { _ = $0.enders?.removeValue(forKey: key) }
    }

    /// Ends every wake-ups registered, and any registered later; each still hands out its pending value first. Outside
    /// the lock: ending removes.
    package func endAll() {
        let enders = state.withLock { state in
            defer { state.enders = nil }
            return state.enders.map { Array($0.values) } ?? []
        }
        for ender in enders { ender() }
    }
}
