import MainlineLoop

/// A thread-safe first-in, first-out mailbox of fixed capacity: producers on any thread place values, the loop
/// takes them in order; when it is full, an ``OverflowPolicy`` decides, and every value dropped or rejected is
/// counted.
///
/// ``place(_:)`` and ``counts`` are thread-safe; ``take()``, ``takeAll()`` and ``event`` belong to the consumer,
/// on the main actor.
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
public final class BoundedMailbox<Value: Sendable>: Sendable {
    /// What ``place(_:)`` does when the mailbox is full.
    public enum OverflowPolicy: Sendable, Hashable {
        /// Keep what is waiting; the new value is accepted and dropped at once (`place` returns `true`).
        case dropNewest
        /// Drop the oldest waiting value to make room for the new one (`place` returns `true`).
        case dropOldest
        /// Refuse the new value: `place` returns `false` and the producer decides what to do.
        case reject
    }

    /// How many values can wait at once.
    public let capacity: Int
    /// What happens to a value placed while the mailbox is full.
    public let overflowPolicy: OverflowPolicy
    @usableFromInline let store: _MailboxStore<_Ring<Value>>

    /// Creates an empty mailbox whose event is delivered on `loop`.
    ///
    /// - Parameters:
    ///   - capacity: How many values can wait; at least 1 (less is reported to `Diagnostics` as
    ///     `mailboxCapacity` and treated as 1).
    ///   - overflow: What happens to a value placed while the mailbox is full.
    ///   - loop: The consumer's loop; the main loop unless a test passes a `TestLoop`.
    ///   - name: A name for metrics: when the loop is instrumented, the values this mailbox drops are counted in
    ///     `mainline_mailbox_drops` with the dimension `mailbox` set to it. `nil` (the default): not reported.
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
        store = _MailboxStore(_Ring(capacity: self.capacity), loop: loop, name: name)
    }

    /// Triggered, lazily, after values arrive: observe it and ``takeAll()`` (or ``take()``) in the observer.
    @MainActor public var event: SimpleEventObservable { store.event }

    /// Places `value` at the end, applying the overflow policy when the mailbox is full. Thread-safe; never blocks.
    ///
    /// - Parameter value: The value.
    /// - Returns: `false` only when the policy is ``OverflowPolicy/reject`` and the mailbox is full: the value was
    ///   not taken, and the producer still has it. `true` otherwise (the value waits, or was dropped and counted).
    @discardableResult
    @inlinable
    public func place(_ value: Value) -> Bool {
        let policy = overflowPolicy
        return store.place { ring, counts in
            if ring.isFull {
                switch policy {
                case .reject:
                    counts.rejected += 1
                    return false
                case .dropNewest:
                    counts.accepted += 1
                    counts.dropped += 1
                    return true
                case .dropOldest:
                    _ = ring.popFirst()
                    counts.dropped += 1
                }
            }
            ring.append(value)
            counts.accepted += 1
            return true
        }
    }

    /// Takes the oldest waiting value.
    ///
    /// - Returns: The value, or `nil` when nothing waits.
    @inlinable
    @MainActor public func take() -> Value? {
        store.withLock { ring, counts in
            guard let value = ring.popFirst() else { return nil }
            counts.delivered += 1
            return value
        }
    }

    /// Takes every waiting value, oldest first.
    ///
    /// - Returns: The values; empty when nothing waits.
    @inlinable
    @MainActor public func takeAll() -> [Value] {
        store.withLock { ring, counts in
            let values = ring.removeAll()
            counts.delivered += values.count
            return values
        }
    }

    /// The name its drops are reported under (see ``init(capacity:overflow:loop:name:)``), if any. Thread-safe.
    public var name: String? { store.name }

    /// What the mailbox did so far. Thread-safe.
    @inlinable
    public var counts: MailboxCounts { store.snapshot }
}
