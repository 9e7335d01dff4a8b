/// One event's payload in the stream benchmark: which event it is, whether it belongs to the warm-up, and when its
/// publisher started publishing it.
///
/// All operations on `Stamp` are thread-safe (it is a value).
///
/// Its text, `"<w|m> <index> <monotonic ns>"`, is both a stream event's payload and a `NOTIFY` payload, so the two
/// peers carry the same bytes.
public struct Stamp: Sendable, Hashable {
    /// The event's number in its run, from 0, in the order the publisher started them.
    public var index: Int
    /// Whether it was published during the warm-up (delivered and checked, but not in the latency figures).
    public var isWarmUp: Bool
    /// ``monotonicNanoseconds()`` just before the publishing call.
    public var publishedAt: Int64

    /// Creates a stamp.
    ///
    /// - Parameters:
    ///   - index: The event's number in its run.
    ///   - isWarmUp: Whether it belongs to the warm-up.
    ///   - publishedAt: When its publishing call started, in ``monotonicNanoseconds()``.
    public init(index: Int, isWarmUp: Bool, publishedAt: Int64) {
        self.index = index
        self.isWarmUp = isWarmUp
        self.publishedAt = publishedAt
    }

    /// Parses a payload; `nil` when it is not one.
    ///
    /// - Parameter text: A payload written by ``text``.
    public init?(text: some StringProtocol) {
        let parts = text.split(separator: " ")
        guard parts.count == 3, parts[0] == "w" || parts[0] == "m", let index = Int(parts[1]),
            let publishedAt = Int64(parts[2])
        else { return nil }
        self.init(index: index, isWarmUp: parts[0] == "w", publishedAt: publishedAt)
    }

    /// The payload.
    public var text: String { "\(isWarmUp ? "w" : "m") \(index) \(publishedAt)" }
}
