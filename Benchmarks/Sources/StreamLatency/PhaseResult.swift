import StreamWire

/// One peer's phase, finished: what the publisher reported, what arrived, and the figures made from them.
///
/// All operations on `PhaseResult` are thread-safe (it is a value).
struct PhaseResult: Sendable {
    /// The peer measured.
    var peer: Peer
    /// Paced (latency) or flood (sustained rate).
    var shape: LoadShape
    /// What the publishing process reported.
    var report: LoadReport
    /// What the receiver counted.
    var books: DeliveryTally.Books
    /// Publish call → receiver, of the measured events (not the warm-up), in nanoseconds.
    var latency: Percentiles
    /// Mainline: publish call → placed into the mailbox by the subscriber's reader (commit, hint, read), in
    /// nanoseconds; empty for `NOTIFY`.
    var beforeMailbox: Percentiles
    /// Mainline: placed into the mailbox → taken by the observer on the main loop (the hop), in nanoseconds; empty for
    /// `NOTIFY`.
    var hop: Percentiles
    /// When the last measured event arrived (``monotonicNanoseconds()``); 0 when none did.
    var lastMeasuredArrival: Int64
    /// When the last event of the run arrived; 0 when none did.
    var lastArrival: Int64
    /// The 1-minute load average before and after the phase.
    var load: (before: Double?, after: Double?)

    /// Events committed by the publisher that never arrived.
    var lost: Int { max(report.published - books.distinct, 0) }

    /// Whether the books balance: nothing lost or repeated, and (Mainline) every sequence in order.
    var isIntact: Bool {
        lost == 0 && books.duplicated == 0 && (books.outOfOrder ?? 0) == 0 && books.resyncs == 0
            && books.malformed == 0 && report.failed == 0
    }

    /// The lag at the end: from the publisher's last commit until the last event arrived on the receiver, in
    /// nanoseconds (0 when it arrived before the call returned); `nil` when events were lost.
    var lagAtEnd: Int64? {
        guard lost == 0, lastArrival > 0 else { return nil }
        return max(lastArrival - report.windowEnd, 0)
    }

    /// Measured events committed per second over the publish window.
    var publishedPerSecond: Double {
        let window = report.windowEnd - report.windowStart
        return window > 0 ? Double(report.measured) * 1e9 / Double(window) : 0
    }

    /// Measured events delivered per second, from the first measured publish call to the last measured arrival.
    var deliveredPerSecond: Double {
        let window = lastMeasuredArrival - report.windowStart
        return window > 0 ? Double(latency.sorted.count) * 1e9 / Double(window) : 0
    }

    /// Whether delivery kept up: nothing lost and the lag at the end under 1 s. Only then is
    /// ``deliveredPerSecond`` a sustained rate.
    var keptUp: Bool { (lagAtEnd ?? .max) < 1_000_000_000 }
}
