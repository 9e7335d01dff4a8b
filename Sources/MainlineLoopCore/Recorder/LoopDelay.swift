/// The loop delay of the last 10–20 seconds: how long each iteration kept the loop busy — the longest that work
/// arriving during it (a post, a timer coming due, I/O) waited for the loop to come round to it.
///
/// `LoopDelay` is a value type; all operations on it are thread-safe. Read it from
/// ``LoopFlightRecorder/delay``. Node's `monitorEventLoopDelay` samples the same quantity with a timer; here every
/// iteration counts, into power-of-two buckets (1 µs, 2 µs, 4 µs, … about 4 s, and longer), so a percentile is the
/// upper bound of the bucket it falls in.
public struct LoopDelay: Sendable, Hashable {
    /// Iterations busy for at most ``upTo`` (`nil`: longer than every other bucket).
    public struct Bucket: Sendable, Hashable {
        /// The bucket's upper bound; `nil` for the last, unbounded bucket.
        public var upTo: Duration?
        /// Iterations in the bucket.
        public var count: Int
    }

    /// The buckets, shortest first.
    public var buckets: [Bucket]
    /// The busiest iteration.
    public var longest: Duration

    /// Iterations counted.
    public var samples: Int { buckets.reduce(0) { $0 + $1.count } }

    /// The delay `fraction` of the iterations stayed within (0.5: the median, 0.99: p99), as the upper bound of its
    /// bucket — never more than ``longest``. Zero when no iteration was counted.
    ///
    /// - Parameter fraction: Between 0 and 1.
    public func percentile(_ fraction: Double) -> Duration {
        let total = samples
        guard total > 0 else { return .zero }
        let rank = Int((Double(total) * min(max(fraction, 0), 1)).rounded(.up))
        var seen = 0
        for bucket in buckets {
            seen += bucket.count
            if seen >= max(rank, 1) { return bucket.upTo.map { min($0, longest) } ?? longest }
        }
        return longest
    }
}
