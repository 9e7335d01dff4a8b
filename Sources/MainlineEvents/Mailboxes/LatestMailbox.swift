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
        store.withLock { slot, counts in
            guard let value = slot else { return nil }
            slot = nil
            counts.delivered += 1
            return value
        }
    }

    /// The name its drops are reported under (see ``init(loop:name:)``), if any. Thread-safe.
    public var name: String? { store.name }

    /// What the mailbox did so far. Thread-safe.
    @inlinable
    public var counts: MailboxCounts { store.snapshot }
}
