/// A point on a loop's monotonic clock, with nanosecond resolution.
///
/// `MainLoop` reads the system's monotonic clock (`CLOCK_MONOTONIC`); `TestLoop` keeps virtual time that starts
/// at ``zero`` and moves only when a test advances it. Both hand out `LoopInstant`s, so code written against
/// ``Loop`` computes deadlines the same way under either.
///
/// `LoopInstant` is a value type; all operations on it are thread-safe.
public struct LoopInstant: Hashable, Comparable, Sendable, InstantProtocol, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: Int64

    /// Creates an instant `nanoseconds` after the clock's origin.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// The origin of the clock: where a `TestLoop`'s virtual time starts.
    public static let zero = LoopInstant(nanoseconds: 0)

    /// The instant `duration` after (or, for a negative duration, before) this one. Saturates rather than overflows.
    public func advanced(by duration: Duration) -> LoopInstant {
        LoopInstant(nanoseconds: Self.addingSaturated(nanoseconds, duration.mainlineNanoseconds))
    }

    /// The time from this instant to `other`.
    public func duration(to other: LoopInstant) -> Duration {
        .nanoseconds(other.nanoseconds &- nanoseconds)
    }

    /// Whether `lhs` comes before `rhs` on the clock.
    public static func < (lhs: LoopInstant, rhs: LoopInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// The instant `rhs` after `lhs`; saturates rather than overflows.
    public static func + (lhs: LoopInstant, rhs: Duration) -> LoopInstant { lhs.advanced(by: rhs) }

    /// The instant `rhs` before `lhs`; saturates rather than overflows.
    public static func - (lhs: LoopInstant, rhs: Duration) -> LoopInstant { lhs.advanced(by: .zero - rhs) }

    /// The time from `rhs` to `lhs`.
    public static func - (lhs: LoopInstant, rhs: LoopInstant) -> Duration { rhs.duration(to: lhs) }

    /// The time since the clock's origin, for logs: `LoopInstant(1.5 seconds)`.
    public var description: String {
        "LoopInstant(\(Duration.nanoseconds(nanoseconds)))"
    }

    private static func addingSaturated(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        return b > 0 ? .max : .min
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at `Int64.min`/`Int64.max` (about ±292 years).
    package var mainlineNanoseconds: Int64 {
        // Durations under about 9.2 s in either direction fit their attoseconds in 64 bits: one 64-bit division by a
        // constant, where `components` divides 128 bits (truncating toward zero, as the path below does).
        if let attoseconds = Int64(exactly: attoseconds) { return attoseconds / 1_000_000_000 }
        let (seconds, attoseconds) = components
        let (fromSeconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds > 0 ? .max : .min }
        let (total, overflow2) = fromSeconds.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds > 0 ? .max : .min }
        return total
    }
}
