import MainlineLoop

/// A thread-safe mailbox that keeps the latest value per key: producers on any thread place values under keys,
/// the loop takes them all, one per key, in the order the keys were first placed since the last take.
///
/// ``place(key:value:)`` and ``counts`` are thread-safe; ``takeAll()`` and ``event`` belong to the consumer, on
/// the main actor.
///
/// ```swift
/// // The latest quote per symbol; a slow consumer never builds up a backlog.
/// let quotes = KeyedMailbox<String, Double>()
/// var token: SimpleEventToken?
/// quotes.event.addObserver(&token) { _ in
///     for (symbol, price) in quotes.takeAll() { board.update(symbol, price) }
/// }
///
/// // On a feed thread:
/// quotes.place(key: "ACME", value: 12.5)
/// ```
///
/// A value replaced before it was taken is counted as dropped. Placing never blocks (beyond a short critical
/// section) and wakes the loop at most once per delivery.
public final class KeyedMailbox<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline
    struct Storage {
        /// Keys in first-placed order.
        @usableFromInline var order: [Key] = []
        @usableFromInline var values: [Key: Value] = [:]

        @usableFromInline init() {}
    }

    @usableFromInline let store: _MailboxStore<Storage>
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
        store = _MailboxStore(Storage(), loop: loop, name: name)
        store.registerForInspection(kind: "keyed", capacity: nil, overflow: nil, replaces: true)
    }

    /// Triggered, lazily, after values arrive: observe it and ``takeAll()`` in the observer.
    @MainActor public var event: SimpleEventObservable { store.event }

    /// Places `value` under `key`, replacing (and counting as dropped) a value for that key not yet taken; a
    /// replaced key keeps its place in the order. Thread-safe; never blocks.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The value.
    /// - Returns: `true`, always: a keyed mailbox accepts every value (the one it replaces is counted as dropped). The
    ///   same shape as `BoundedMailbox.place(_:)`, whose `false` means "refused, still yours".
    @discardableResult
    @inlinable
    public func place(key: Key, value: Value) -> Bool {
        store.place { storage, counts in
            if storage.values.updateValue(value, forKey: key) == nil {
                storage.order.append(key)
            } else {
                counts.dropped += 1
            }
            counts.accepted += 1
            return true
        }
    }

    /// Takes every waiting value, one per key, in the order the keys were first placed since the last take.
    ///
    /// - Returns: The key–value pairs; empty if nothing arrived.
    @inlinable
    @MainActor public func takeAll() -> [(key: Key, value: Value)] {
        let taken = store.withLock { storage, counts in
            let taken = storage.order.map { key in (key: key, value: storage.values[key]!) }
            storage.order.removeAll(keepingCapacity: true)
            storage.values.removeAll(keepingCapacity: true)
            counts.delivered += taken.count
            return taken
        }
        if let takeObserver, !taken.isEmpty { takeObserver(taken.map(\.value)) }
        return taken
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
