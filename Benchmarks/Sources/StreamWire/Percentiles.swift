/// Nearest-rank percentiles of a set of samples.
///
/// All operations on `Percentiles` are thread-safe (it is a value).
public struct Percentiles: Sendable, Hashable {
    /// The samples, ascending.
    public let sorted: [Int64]

    /// Sorts `samples`.
    ///
    /// - Parameter samples: Any order.
    /// - Complexity: O(*n* log *n*).
    public init(_ samples: [Int64]) {
        sorted = samples.sorted()
    }

    /// The smallest sample with at least `fraction` of the samples at or below it; 0 when there are none.
    ///
    /// - Parameter fraction: From 0 to 1 (0.99 for p99).
    /// - Returns: The sample.
    public func at(_ fraction: Double) -> Int64 {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// The largest sample; 0 when there are none.
    public var maximum: Int64 { sorted.last ?? 0 }
}
