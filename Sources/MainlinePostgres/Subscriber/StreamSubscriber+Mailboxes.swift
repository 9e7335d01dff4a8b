#if Postgres
import MainlineEvents
import PostgresNIO

/// Subscribing into Mainline's mailboxes: bounded (each overflow policy, `.suspend` included), latest, keyed.
extension StreamSubscriber {
    /// Subscribes to `stream`, placing its deliveries into `mailbox`.
    ///
    /// A full mailbox acts by its overflow policy:
    /// - `.suspend`: the subscription waits for room (the delivery waits among the mailbox's senders, and is placed
    ///   as soon as the consumer takes), without polling and without holding back the subscriber's other
    ///   subscriptions. Memory stays bounded: the rest of the stream stays in the table meanwhile.
    /// - `.reject`: the stream is held back without losing anything, and offered again after
    ///   ``Options/retryInterval``.
    /// - `.dropOldest`, `.dropNewest`: the mailbox drops, and counts, what it cannot hold.
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - start: Where to start reading.
    ///   - mailbox: Where the deliveries go.
    ///   - decode: Turns a stored payload into a value; when it throws, the event is logged, counted and skipped.
    /// - Returns: The subscription.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``; for ``StreamStart/stored(_:initially:)``
    ///   ``StreamError/invalidPositionName(_:reason:)``, ``StreamError/positionNameInUse(_:stream:otherStream:)``,
    ///   ``StreamError/unsupportedStart(_:reason:)`` and ``StreamError/mailboxAlreadyTracked(positionName:)`` (the
    ///   mailbox serves another stored position or group member).
    @MainActor
    public func subscribe<Value: Sendable>(
        to stream: String,
        from start: StreamStart = .latest,
        into mailbox: BoundedMailbox<StreamDelivery<Value>>,
        decode: @escaping @Sendable (ByteBuffer) throws -> Value
    ) throws(StreamError) -> StreamSubscription {
        try register(
            stream: stream,
            start: start,
            decode: decode,
            place: { mailbox.place($0) },
            wait: mailbox.sendWaitingForRoom,
            observeTakes: start.isStored ? { mailbox._observeTakes($0) } : nil
        )
    }

    /// Subscribes to `stream`, keeping only the latest delivery in `mailbox` (for streams of whole states, where
    /// only the newest matters).
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - start: Where to start reading.
    ///   - mailbox: Where the deliveries go; a newer one replaces one not yet taken.
    ///   - decode: Turns a stored payload into a value; when it throws, the event is logged, counted and skipped.
    /// - Returns: The subscription.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``; for ``StreamStart/stored(_:initially:)``
    ///   ``StreamError/invalidPositionName(_:reason:)``, ``StreamError/positionNameInUse(_:stream:otherStream:)``,
    ///   ``StreamError/unsupportedStart(_:reason:)`` and ``StreamError/mailboxAlreadyTracked(positionName:)`` (the
    ///   mailbox serves another stored position or group member).
    @MainActor
    public func subscribe<Value: Sendable>(
        to stream: String,
        from start: StreamStart = .latest,
        into mailbox: LatestMailbox<StreamDelivery<Value>>,
        decode: @escaping @Sendable (ByteBuffer) throws -> Value
    ) throws(StreamError) -> StreamSubscription {
        try register(
            stream: stream,
            start: start,
            decode: decode,
            place: { mailbox.place($0) },
            wait: nil,
            observeTakes: start.isStored ? { mailbox._observeTakes($0) } : nil
        )
    }

    /// Subscribes to `stream`, keeping the latest delivery per key in `mailbox` (for streams of updates to many
    /// things, where only each thing's newest state matters).
    ///
    /// A resync is a delivery too: give it a key of its own, so that it is never replaced by an event, and handle it
    /// first when you take.
    ///
    /// ```swift
    /// enum QuoteKey: Hashable, Sendable { case symbol(String), resync }
    /// let quotes = KeyedMailbox<QuoteKey, StreamDelivery<Quote>>()
    /// let subscription = try subscriber.subscribe(to: "quotes", into: quotes, decode: Quote.init(buffer:)) {
    ///     switch $0 {
    ///     case .event(let event): .symbol(event.value.symbol)
    ///     case .resync: .resync
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - start: Where to start reading.
    ///   - mailbox: Where the deliveries go; a newer one replaces one of the same key not yet taken (counted as
    ///     dropped by the mailbox), and every delivery counts as delivered by the subscription.
    ///   - decode: Turns a stored payload into a value; when it throws, the event is logged, counted and skipped.
    ///   - key: The key a delivery is kept under. Runs on the subscriber's reader task; must not block.
    /// - Returns: The subscription.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``; for ``StreamStart/stored(_:initially:)``
    ///   ``StreamError/invalidPositionName(_:reason:)``, ``StreamError/positionNameInUse(_:stream:otherStream:)``,
    ///   ``StreamError/unsupportedStart(_:reason:)`` and ``StreamError/mailboxAlreadyTracked(positionName:)`` (the
    ///   mailbox serves another stored position or group member).
    @MainActor
    public func subscribe<Key: Hashable & Sendable, Value: Sendable>(
        to stream: String,
        from start: StreamStart = .latest,
        into mailbox: KeyedMailbox<Key, StreamDelivery<Value>>,
        decode: @escaping @Sendable (ByteBuffer) throws -> Value,
        key: @escaping @Sendable (StreamDelivery<Value>) -> Key
    ) throws(StreamError) -> StreamSubscription {
        try register(
            stream: stream,
            start: start,
            decode: decode,
            place: { mailbox.place(key: key($0), value: $0) },
            wait: nil,
            observeTakes: start.isStored ? { mailbox._observeTakes($0) } : nil
        )
    }
}
#endif
