import Atomics

/// The loop delay of the last 10–20 seconds: how long each iteration kept the loop busy, in power-of-two buckets.
///
/// ``record(_:now:)`` must be called only where the loop runs (one writer: a load and a store per bucket, no
/// read-modify-write); ``read()`` is thread-safe and approximate (a report, not a synchronization point).
///
/// Two windows of ``windowNanoseconds`` each: the loop counts into the current one and, when it is over, clears the
/// older one and counts into that. A reader adds both, so what it sees covers between one and two windows: recent
/// enough to show a loop that became slow, long enough to hold a p99.
package final class _DelayHistogram: @unchecked Sendable {
    // @unchecked Sendable: `counts` is allocated in `init` and freed in `deinit`; every access in between is atomic.
    // `windowStart` is touched only by the writer.

    /// Bucket `i` holds iterations busy for at most 2^i µs; the last one, everything longer.
    static let bucketCount = 24
    /// How long one window lasts.
    static let windowNanoseconds: UInt64 = 10_000_000_000
    /// Per window: the buckets, then the longest iteration in nanoseconds.
    private static let wordsPerWindow = bucketCount + 1

    private let counts: UnsafeMutablePointer<UInt64.AtomicRepresentation>
    /// Which window the loop counts into (0 or 1).
    private let current = UnsafeAtomic<Int>.create(0)
    /// When the current window began (`nil`: not yet). Loop only.
    private var windowStart: UInt64?

    init() {
        counts = .allocate(capacity: 2 * Self.wordsPerWindow)
        counts.initialize(repeating: UInt64.AtomicRepresentation(0), count: 2 * Self.wordsPerWindow)
    }

    deinit {
        counts.deinitialize(count: 2 * Self.wordsPerWindow)
        counts.deallocate()
        current.destroy()
    }

    @inline(__always)
    private func word(_ window: Int, _ index: Int) -> UnsafeAtomic<UInt64> {
        UnsafeAtomic(at: counts + window * Self.wordsPerWindow + index)
    }

    /// The bucket of an iteration busy for `nanoseconds`.
    static func bucket(_ nanoseconds: UInt64) -> Int {
        let microseconds = (nanoseconds + 999) / 1_000
        guard microseconds > 1 else { return 0 }
        let bucket = UInt64.bitWidth - (microseconds - 1).leadingZeroBitCount
        return min(bucket, bucketCount - 1)
    }

    /// The upper bound of bucket `index`, in nanoseconds (`nil` for the last, unbounded one).
    package static func upperBound(_ index: Int) -> UInt64? {
        index == bucketCount - 1 ? nil : (UInt64(1) << UInt64(index)) * 1_000
    }

    /// Counts one iteration busy for `nanoseconds`, ending at `now`. Loop only.
    package func record(_ nanoseconds: UInt64, now: UInt64) {
        var window = current.load(ordering: .relaxed)
        if let start = windowStart, now &- start >= Self.windowNanoseconds {
            window ^= 1
            for index in 0..<Self.wordsPerWindow { word(window, index).store(0, ordering: .relaxed) }
            current.store(window, ordering: .relaxed)
            windowStart = now
        } else if windowStart == nil {
            windowStart = now
        }
        let bucket = word(window, Self.bucket(nanoseconds))
        bucket.store(bucket.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
        let longest = word(window, Self.bucketCount)
        if nanoseconds > longest.load(ordering: .relaxed) { longest.store(nanoseconds, ordering: .relaxed) }
    }

    /// Both windows added up: the count per bucket and the longest iteration. Thread-safe.
    package func read() -> (counts: [Int], longest: UInt64) {
        var counts = [Int](repeating: 0, count: Self.bucketCount)
        var longest: UInt64 = 0
        for window in 0..<2 {
            for index in 0..<Self.bucketCount {
                counts[index] += Int(truncatingIfNeeded: word(window, index).load(ordering: .relaxed))
            }
            longest = max(longest, word(window, Self.bucketCount).load(ordering: .relaxed))
        }
        return (counts, longest)
    }
}
