import MainlineLoop

/// A thread-safe mailbox that keeps only the latest value: producers on any thread place values, the loop takes
/// the newest one; those it never saw are dropped, and counted.
///
/// ``place(_:)`` and ``counts`` are thread-safe; ``take()`` and ``event`` belong to the consumer, on the main
/// actor.
///
/// ```swift
/// let temperature = LatestMailbox<Double>()
/// var token: SimpleEventToken?
/// temperature.event.addObserver(&token) { _ in
///     if let celsius = temperature.take() { display.show(celsius) }
/// }
///
/// // On a sensor thread, as fast as readings come:
/// temperature.place(reading)
/// ```
///
/// Placing never blocks (beyond a short critical section) and wakes the loop at most once per delivery: the
/// event is a ``LazySimpleEvent``, so a burst of places is one notification.
public final class LatestMailbox<Value: Sendable>: Sendable {
    @usableFromInline let store: _MailboxStore<Value?>
    /// Called on the main actor with the values of each take that took something, when set by ``_observeTakes(_:)``;
    /// `nil` (one load and one branch per take) for every mailbox that nobody observes. Protected by the main actor.
    @usableFromInline @MainActor var takeObserver: (@MainActor ([Value]) -> Void)?

    /// Creates an empty mailbox whose event is delivered on `loop`.
    ///
    /// - Parameters:
    ///   - loop: The consumer's loop; the main loop unless a test passes a `TestLoop`.
    ///   - name: A name for metrics: when the loop is instrumented, the values this mailbox drops are counted in
    ///     `mainline_mailbox_drops` with the dimension `mailbox` set to it. `nil` (the default): not reported.
    @MainActor public init(loop: any Loop = MainLoop.main, name: String? = nil) {
        store = _MailboxStore(nil, loop: loop, name: name)
        store.registerForInspection(kind: "latest", capacity: 1, overflow: nil, replaces: true)
    }

    /// Triggered, lazily, after values arrive: observe it and ``take()`` in the observer.
    @MainActor public var event: SimpleEventObservable { store.event }

    /// Places `value`, replacing (and counting as dropped) a value not yet taken. Thread-safe; never blocks.
    ///
    /// - Parameter value: The value.
    /// - Returns: `true`, always: a latest-value mailbox accepts every value (the one it replaces is counted as
    ///   dropped). The same shape as `BoundedMailbox.place(_:)`, whose `false` means "refused, still yours".
    @discardableResult
    @inlinable
    public func place(_ value: Value) -> Bool {
        store.place { slot, counts in
            if slot != nil { counts.dropped += 1 }
            slot = value
            counts.accepted += 1
            return true
        }
    }

    /// Takes the latest value, leaving the mailbox empty.
    ///
    /// - Returns: The value, or `nil` if nothing arrived since the last take.
    @inlinable
    @MainActor public func take() -> Value? {
        let value = store.withLock { slot, counts -> Value? in
            guard let value = slot else { return nil }
            slot = nil
            counts.delivered += 1
            return value
        }
        if let takeObserver, let value { takeObserver([value]) }
        return value
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

    /// The name its drops are reported under (see ``init(loop:name:)``), if any. Thread-safe.
    public var name: String? { store.name }

    /// What the mailbox did so far. Thread-safe.
    @inlinable
    public var counts: MailboxCounts { store.snapshot }
}
