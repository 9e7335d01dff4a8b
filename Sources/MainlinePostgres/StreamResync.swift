#if Postgres
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
#endif
