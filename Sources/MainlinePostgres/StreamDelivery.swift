#if Postgres
import Foundation

/// What a subscription places in its mailbox: the next event of the stream, or word that events were lost.
///
/// All operations on `StreamDelivery` are thread-safe (it is a value).
public enum StreamDelivery<Value: Sendable>: Sendable {
    /// The next event, in sequence order; each sequence is placed once.
    case event(StreamEvent<Value>)
    /// Events the subscription had not read were deleted (retention) or the stream went back (its tables were
    /// recreated): reload your state from its source, then carry on with the events that follow. Placed once per
    /// gap.
    case resync(StreamResync)
}

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

    /// Creates an event (for tests of code that consumes deliveries).
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - sequence: Its place in the stream.
    ///   - publishedAt: When it was published.
    ///   - value: The payload.
    public init(stream: String, sequence: Int64, publishedAt: Date, value: Value) {
        self.stream = stream
        self.sequence = sequence
        self.publishedAt = publishedAt
        self.value = value
    }
}

/// A gap a subscription cannot fill: the events after ``lastDelivered`` up to ``resumesAfter`` are gone.
///
/// All operations on `StreamResync` are thread-safe (it is a value).
public struct StreamResync: Sendable, Hashable {
    /// The stream's name.
    public var stream: String
    /// The last sequence the subscription had placed (or started after); 0 when none.
    public var lastDelivered: Int64
    /// The next event placed will be the one after this sequence.
    public var resumesAfter: Int64

    /// Creates a resync (for tests of code that consumes deliveries).
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - lastDelivered: The last sequence placed before the gap.
    ///   - resumesAfter: The sequence the gap ends at.
    public init(stream: String, lastDelivered: Int64, resumesAfter: Int64) {
        self.stream = stream
        self.lastDelivered = lastDelivered
        self.resumesAfter = resumesAfter
    }
}

/// Where a new subscription starts reading its stream.
///
/// All operations on `StreamStart` are thread-safe (it is a value).
public enum StreamStart: Sendable, Hashable {
    /// After the stream's last event when the subscriber first reads it (new events only).
    case latest
    /// From the oldest event the table still holds; no resync for what retention deleted before.
    case oldestAvailable
    /// After `sequence`: resume from a position you stored (``StreamSubscription/lastSequence``). When events after
    /// it are gone, the subscription begins with one resync. `after(0)` means from the stream's first event.
    case after(Int64)
}
#endif
