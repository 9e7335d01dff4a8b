import MainlineLoop

/// A thread-safe first-in, first-out mailbox of fixed capacity: producers on any thread place values, the loop
/// takes them in order; when it is full, an ``OverflowPolicy`` decides — drop, refuse, or make the producer wait —
/// and every value dropped or rejected is counted.
///
/// ``place(_:)``, ``send(_:)`` and ``counts`` are thread-safe; ``take()``, ``takeAll()`` and ``event`` belong to the
/// consumer, on the main actor.
///
/// ```swift
/// let jobs = BoundedMailbox<Job>(capacity: 1_000, overflow: .reject)
/// var token: SimpleEventToken?
/// jobs.event.addObserver(&token) { _ in
///     for job in jobs.takeAll() { scheduler.start(job) }
/// }
///
/// // On a network thread:
/// if !jobs.place(job) { connection.reply("busy, try later") }
/// ```
///
/// Values from one producer are delivered in the order it placed them (with `.dropOldest`, minus the dropped
/// ones). Placing never blocks (beyond a short critical section) and wakes the loop at most once per delivery.
///
/// With ``OverflowPolicy/suspend`` producers in tasks wait for room instead of losing values — backpressure from the
/// loop to its producers:
///
/// ```swift
/// let rows = BoundedMailbox<Row>(capacity: 256, overflow: .suspend)
/// var token: SimpleEventToken?
/// rows.event.addObserver(&token) { _ in
///     for row in rows.takeAll() { table.insert(row) }   // frees room: the oldest waiting senders resume
/// }
///
/// // In any task:
/// for try await row in database.rows(query) {
///     try await rows.send(row)   // waits while the loop is 256 rows behind
/// }
/// ```
public final class BoundedMailbox<Value: Sendable>: Sendable {
    /// What ``place(_:)`` and ``send(_:)`` do when the mailbox is full.
    public enum OverflowPolicy: Sendable, Hashable {
        /// Keep what is waiting; the new value is accepted and dropped at once (`place` returns `true`).
        case dropNewest
        /// Drop the oldest waiting value to make room for the new one (`place` returns `true`).
        case dropOldest
        /// Refuse the new value: `place` returns `false` and the producer decides what to do.
        case reject
        /// Make the producer wait: ``BoundedMailbox/send(_:)`` suspends until the loop has taken enough values for
        /// this one to fit, then returns; senders resume in the order they started waiting, and a new value never
        /// overtakes a waiting one. ``BoundedMailbox/place(_:)``, which cannot wait, behaves as ``reject`` when the
        /// mailbox is full (it returns `false`; the refusal is counted in ``MailboxCounts/rejected``).
        ///
        /// A waiting sender ends in one of three ways: the loop frees room (its value is accepted; `send` returns),
        /// its task is cancelled (`send` throws `CancellationError`; the value is not accepted, never delivered, and
        /// counted as rejected), or the mailbox's loop stops (`send` throws `LoopStopped`, likewise). So no sender
        /// waits forever on a loop that is gone. The loop never waits for a producer: taking a value moves the
        /// oldest waiter's value into the freed slot and resumes its task, under one short critical section.
        ///
        /// - Important: The mailbox learns that its loop stopped through `Loop.onShutdown(_:)`, the same way on every
        ///   loop: `MainLoop` and `TestLoop` implement it, and so should a `Loop` of your own (one that wraps another
        ///   forwards it). On a loop that does not (the protocol's default), creating a `.suspend` mailbox reports
        ///   `loopWithoutShutdownHooks` to `Diagnostics` — a trap in debug builds by default — and, carrying on,
        ///   its senders wait until they are cancelled or given room. A waiting sender keeps the mailbox alive (it is
        ///   the receiver of `send`), so a mailbox is never freed while a sender waits.
        case suspend
    }

    /// How many values can wait at once.
    public let capacity: Int
    /// What happens to a value placed while the mailbox is full.
    public let overflowPolicy: OverflowPolicy
    @usableFromInline let store: _MailboxStore<_BoundedStorage<Value>>
    /// Called on the main actor with the values of each take that took something, when set by ``_observeTakes(_:)``;
    /// `nil` (one load and one branch per take) for every mailbox that nobody observes. Protected by the main actor.
    @usableFromInline @MainActor var takeObserver: (@MainActor ([Value]) -> Void)?
    /// The loop, for withdrawing ``shutdownHook`` when the mailbox is freed.
    private let loop: any Loop
    /// `.suspend` on a core loop: fails the waiting senders when the loop stops. Created and cancelled on the main
    /// actor (`ShutdownRegistration` is main-actor isolated, hence `Sendable`).
    private let shutdownHook: ShutdownRegistration?

    /// Creates an empty mailbox whose event is delivered on `loop`.
    ///
    /// - Parameters:
    ///   - capacity: How many values can wait; at least 1 (less is reported to `Diagnostics` as
    ///     `mailboxCapacity` and treated as 1).
    ///   - overflow: What happens to a value placed while the mailbox is full.
    ///   - loop: The consumer's loop; the main loop unless a test passes a `TestLoop`.
    ///   - name: A name for metrics: when the loop is instrumented, the values this mailbox drops are counted in
    ///     `mainline_mailbox_drops` with the dimension `mailbox` set to it (on `MainLoop` and `TestLoop`; a
    ///     `Loop` of your own has no metrics). `nil` (the default): not reported.
    ///
    /// - Important: With ``OverflowPolicy/suspend`` the mailbox registers a shutdown hook on `loop`
    ///   (`Loop.onShutdown(_:)`); on a `Loop` of your own that does not implement it, this reports
    ///   `loopWithoutShutdownHooks` to `Diagnostics` (see ``OverflowPolicy/suspend``).
    @MainActor public init(
        capacity: Int,
        overflow: OverflowPolicy,
        loop: any Loop = MainLoop.main,
        name: String? = nil
    ) {
        if capacity < 1 {
            Diagnostics.report(
                .mailboxCapacity,
                "BoundedMailbox(capacity: \(capacity)) cannot hold anything; a mailbox needs a capacity of at least 1. Using 1."
            )
        }
        self.capacity = max(capacity, 1)
        self.overflowPolicy = overflow
        self.loop = loop
        let store = _MailboxStore(_BoundedStorage<Value>(capacity: self.capacity), loop: loop, name: name)
        self.store = store
        if overflow == .suspend {
            // Weak: the hook must not keep a freed mailbox's store alive until the loop stops. On a stopped loop the
            // registration comes back cancelled: senders are refused from the start. On a loop without shutdown hooks
            // (`Loop.onShutdown`'s default) the misuse is reported now, and senders wait until cancelled or given room.
            let hook = loop.onShutdown { [weak store] in store?.closeWaiters() }
            if hook.isActive {
                shutdownHook = hook
            } else {
                if !hook.loopKeepsNoHooks { store.withLock { storage, _ in storage.waiters.isClosed = true } }
                shutdownHook = nil
            }
        } else {
            shutdownHook = nil
        }
        store.registerForInspection(
            kind: "bounded",
            capacity: self.capacity,
            overflow: "\(overflow)",
            replaces: false
        )
    }

    deinit {
        // Withdraw the hook on the loop (a registration is main-actor isolated); refused once the loop has stopped,
        // when the hooks have run anyway.
        if let shutdownHook { _ = loop.post { shutdownHook.cancel() } }
    }

    /// Triggered, lazily, after values arrive: observe it and ``takeAll()`` (or ``take()``) in the observer.
    @MainActor public var event: SimpleEventObservable { store.event }

    /// Places `value` at the end, applying the overflow policy when the mailbox is full. Thread-safe; never blocks.
    ///
    /// - Parameter value: The value.
    /// - Returns: `false` only when the mailbox is full and the policy is ``OverflowPolicy/reject`` or
    ///   ``OverflowPolicy/suspend`` (`place` cannot wait; use ``send(_:)`` to wait): the value was not taken, and the
    ///   producer still has it. `true` otherwise (the value waits, or was dropped and counted).
    @discardableResult
    @inlinable
    public func place(_ value: Value) -> Bool {
        let policy = overflowPolicy
        return store.place { storage, counts in
            if storage.ring.isFull {
                switch policy {
                case .reject, .suspend:
                    // `.suspend`: senders may be waiting (only while the ring is full); refusing keeps them first.
                    counts.rejected += 1
                    return false
                case .dropNewest:
                    counts.accepted += 1
                    counts.dropped += 1
                    return true
                case .dropOldest:
                    _ = storage.ring.popFirst()
                    counts.dropped += 1
                }
            }
            storage.ring.append(value)
            counts.accepted += 1
            return true
        }
    }

    /// Takes the oldest waiting value. Must be called on the main actor.
    ///
    /// With ``OverflowPolicy/suspend``, the freed slot goes at once to the oldest waiting sender: its value is
    /// appended (and counted as accepted), its task resumes, and ``event`` is triggered for the value that arrived.
    /// The consumer never waits for the sender to run.
    ///
    /// - Returns: The value, or `nil` when nothing waits.
    @inlinable
    @MainActor public func take() -> Value? {
        let (value, resumed) = store.withLock { storage, counts -> (Value?, CheckedContinuation<Void, any Error>?) in
            guard let value = storage.ring.popFirst() else { return (nil, nil) }
            counts.delivered += 1
            return (value, storage.handOneSlot(counts: &counts))
        }
        if let resumed {
            store.event.trigger()
            resumed.resume()
        }
        if let takeObserver, let value { takeObserver([value]) }
        return value
    }

    /// Takes every waiting value, oldest first. Must be called on the main actor.
    ///
    /// With ``OverflowPolicy/suspend``, the freed slots go at once to the oldest waiting senders, as with ``take()``;
    /// their values are not in the returned array but wait for the next delivery of ``event``.
    ///
    /// - Returns: The values; empty when nothing waits.
    /// - Complexity: O(*n* + *w*), *n* the values taken and *w* the senders given room.
    @inlinable
    @MainActor public func takeAll() -> [Value] {
        let (values, resumed) = store.withLock { storage, counts in
            let values = storage.ring.removeAll()
            counts.delivered += values.count
            return (values, storage.handRoom(counts: &counts))
        }
        if !resumed.isEmpty {
            store.event.trigger()
            for continuation in resumed { continuation.resume() }
        }
        if let takeObserver, !values.isEmpty { takeObserver(values) }
        return values
    }

    /// Not API (for `MainlinePostgres`, which stores a subscription's position once its consumer took an event): calls
    /// `observer` on the main actor with the values of each take, after the take. Must be called on the main actor.
    ///
    /// - Parameter observer: Called once per take that took something, with its values in the order taken.
    /// - Returns: `false`, changing nothing, when the mailbox already has an observer (one per mailbox).
    @MainActor package func _observeTakes(_ observer: @escaping @MainActor ([Value]) -> Void) -> Bool {
        guard takeObserver == nil else { return false }
        takeObserver = observer
        return true
    }

    /// The name its drops are reported under (see ``init(capacity:overflow:loop:name:)``), if any. Thread-safe.
    public var name: String? { store.name }

    /// What the mailbox did so far. Thread-safe.
    @inlinable
    public var counts: MailboxCounts { store.snapshot }
}
