#if Postgres
import Foundation

/// One event of a stream, decoded.
///
/// All operations on `StreamEvent` are thread-safe (it is a value).
public struct StreamEvent<Value: Sendable>: Sendable {
    /// The stream's name.
    public var stream: String
    /// Its place in the stream: 1, 2, 3, … without gaps (as published; retention may delete old ones).
    public var sequence: Int64
    /// When its publishing statement ran, by the database's clock.
    public var publishedAt: Date
    /// The key its publisher gave it (`publish(_:to:key:…)`), or `nil`: consumer groups keep the events of one key
    /// in order.
    public let key: String?
    /// The decoded payload.
    public var value: Value
    /// How many times it was handed to a member of a consumer group: 1 the first time, more when a member's lease
    /// expired (it died, or lost its connection) before it acknowledged. Always 1 for a plain subscription.
    public var deliveryCount: Int

    /// Creates an event (for tests of code that consumes deliveries).
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - sequence: Its place in the stream.
    ///   - publishedAt: When it was published.
    ///   - key: Its key, or `nil`.
    ///   - value: The payload.
    ///   - deliveryCount: How many times a group handed it out (1 outside groups).
    public init(
        stream: String,
        sequence: Int64,
        publishedAt: Date,
        key: String? = nil,
        value: Value,
        deliveryCount: Int = 1
    ) {
        self.stream = stream
        self.sequence = sequence
        self.publishedAt = publishedAt
        self.key = key
        self.value = value
        self.deliveryCount = deliveryCount
    }
}

/// Events compare equal when every field does (the stream, the sequence, the publication time, the key, the value and
/// the delivery count).
extension StreamEvent: Equatable where Value: Equatable {}

/// Hashes every field (see `Equatable`).
extension StreamEvent: Hashable where Value: Hashable {}
#endif
