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
    ///   - value: The payload.
    ///   - deliveryCount: How many times a group handed it out (1 outside groups).
    public init(stream: String, sequence: Int64, publishedAt: Date, value: Value, deliveryCount: Int = 1) {
        self.stream = stream
        self.sequence = sequence
        self.publishedAt = publishedAt
        self.value = value
        self.deliveryCount = deliveryCount
    }
}
#endif
