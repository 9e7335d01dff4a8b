#if Postgres
import Foundation
import MainlineEvents
import PostgresNIO

/// Subscribing to streams of JSON (``StreamPublisher/publish(json:to:key:idempotencyKey:timeout:)``) into every kind
/// of mailbox: the same subscriptions, with `JSONDecoder` as the decoder.
extension StreamSubscriber {
    /// Subscribes to `stream`, whose payloads are `Value`s encoded as JSON
    /// (``StreamPublisher/publish(json:to:key:idempotencyKey:timeout:)``),
    /// placing its deliveries into `mailbox`.
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - start: Where to start reading.
    ///   - type: The payloads' type; a payload that does not decode is logged, counted and skipped.
    ///   - mailbox: Where the deliveries go.
    /// - Returns: The subscription.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``.
    @MainActor
    public func subscribe<Value: Decodable & Sendable>(
        to stream: String,
        from start: StreamStart = .latest,
        as type: Value.Type,
        into mailbox: BoundedMailbox<StreamDelivery<Value>>
    ) throws(StreamError) -> StreamSubscription {
        try subscribe(to: stream, from: start, into: mailbox, decode: Self.decodeJSON)
    }

    /// Subscribes to `stream`, whose payloads are `Value`s encoded as JSON, keeping only the latest delivery in
    /// `mailbox`.
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - start: Where to start reading.
    ///   - type: The payloads' type; a payload that does not decode is logged, counted and skipped.
    ///   - mailbox: Where the deliveries go; a newer one replaces one not yet taken.
    /// - Returns: The subscription.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``.
    @MainActor
    public func subscribe<Value: Decodable & Sendable>(
        to stream: String,
        from start: StreamStart = .latest,
        as type: Value.Type,
        into mailbox: LatestMailbox<StreamDelivery<Value>>
    ) throws(StreamError) -> StreamSubscription {
        try subscribe(to: stream, from: start, into: mailbox, decode: Self.decodeJSON)
    }

    /// Subscribes to `stream`, whose payloads are `Value`s encoded as JSON, keeping the latest delivery per key in
    /// `mailbox`.
    ///
    /// ```swift
    /// enum QuoteKey: Hashable, Sendable { case symbol(String), resync }
    /// let quotes = KeyedMailbox<QuoteKey, StreamDelivery<Quote>>()
    /// let subscription = try subscriber.subscribe(to: "quotes", as: Quote.self, into: quotes) {
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
    ///   - type: The payloads' type; a payload that does not decode is logged, counted and skipped.
    ///   - mailbox: Where the deliveries go; a newer one replaces one of the same key not yet taken.
    ///   - key: The key a delivery is kept under (give a resync a key of its own). Runs on the subscriber's reader
    ///     task; must not block.
    /// - Returns: The subscription.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``.
    @MainActor
    public func subscribe<Key: Hashable & Sendable, Value: Decodable & Sendable>(
        to stream: String,
        from start: StreamStart = .latest,
        as type: Value.Type,
        into mailbox: KeyedMailbox<Key, StreamDelivery<Value>>,
        key: @escaping @Sendable (StreamDelivery<Value>) -> Key
    ) throws(StreamError) -> StreamSubscription {
        try subscribe(to: stream, from: start, into: mailbox, decode: Self.decodeJSON, key: key)
    }

    /// Decodes a JSON payload.
    @Sendable
    static func decodeJSON<Value: Decodable>(_ buffer: ByteBuffer) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(buffer.readableBytesView))
    }
}
#endif
