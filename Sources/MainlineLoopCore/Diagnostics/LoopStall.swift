/// One stall the `LoopWatchdog` reported.
///
/// `LoopStall` is a value type; all operations on it are thread-safe.
public struct LoopStall: Sendable, Hashable, CustomStringConvertible {
    /// What held the loop too long.
    public enum Kind: Sendable, Hashable {
        /// One callback (a post, a timer, the settle phase, …) ran past the threshold.
        case callback
        /// One iteration ran past the threshold, though none of its callbacks did alone.
        case iteration
    }

    /// The label of the callback running when the stall was detected: the label given to
    /// ``Loop/post(label:fileID:line:_:)`` or the scheduling calls, else what it is (`post`, `timer`, `idle`, `settle`,
    /// `signal`, `shutdown hook`, `main queue`, `main actor`).
    public var label: String
    /// Where the running work came from — the line that posted or scheduled it — when it is work with a site (a post,
    /// a timer, an idle body); `nil` for the loop's own work (settle, signals, hooks) and main-actor work outside the
    /// loop.
    public var site: LoopSite?
    /// Whether one callback or one iteration stalled.
    public var kind: Kind
    /// How long the callback (or iteration) had held the loop when the watchdog reported it: a lower bound, since a
    /// stall is reported while it lasts. The watchdog logs the total once the stall has ended, and writes it into the
    /// report the flight recorder keeps (``total``).
    public var duration: Duration
    /// How long the callback (or iteration) held the loop in all, once the watchdog has seen it end (within a quarter
    /// of the threshold of its end); `nil` until then — in the report `LoopWatchdog.onStall` receives, in a kept
    /// report while the stall lasts, and in one whose end the watchdog never saw (a later stall was reported first).
    /// The reports in ``LoopFlightRecorder/stallsKept`` carry it once it is known.
    public var total: Duration?
    /// When the callback (or iteration) began, in nanoseconds on the loop's clock (`CLOCK_MONOTONIC`).
    public var startNanoseconds: UInt64
    /// What the loop did just before: the flight recorder's last events (at most 32), oldest first.
    public var lastEvents: [LoopFlightRecorder.Event]
    /// The loop thread's call stack when the stall was reported, innermost frame first: where the running work is
    /// stuck. Best effort — `nil` when the thread did not answer in time, and for `main actor` stalls (work outside the
    /// loop's callbacks, whose thread the watchdog does not know). See ``LoopBacktrace``.
    public var backtrace: LoopBacktrace?

    /// Creates a stall report.
    ///
    /// - Parameters:
    ///   - label: The label of the running callback.
    ///   - site: Where the running work came from, if it has a site.
    ///   - kind: Whether one callback or one iteration stalled.
    ///   - duration: How long it had held the loop.
    ///   - startNanoseconds: When it began, on the loop's clock.
    ///   - lastEvents: The flight recorder's last events before the stall.
    ///   - backtrace: The loop thread's call stack, when it was captured.
    ///   - total: How long it held the loop in all, once it has ended.
    public init(
        label: String,
        site: LoopSite? = nil,
        kind: Kind,
        duration: Duration,
        startNanoseconds: UInt64 = 0,
        lastEvents: [LoopFlightRecorder.Event] = [],
        backtrace: LoopBacktrace? = nil,
        total: Duration? = nil
    ) {
        self.backtrace = backtrace
        self.total = total
        self.label = label
        self.site = site
        self.kind = kind
        self.duration = duration
        self.startNanoseconds = startNanoseconds
        self.lastEvents = lastEvents
    }

    /// `callback 'fetch' (MyApp/Catalogue.swift:42) has held the loop for at least 112.5 ms`: a stall is reported
    /// while it lasts, so its duration is a lower bound. Once it has ended (a kept report with its ``total``):
    /// `callback 'fetch' (MyApp/Catalogue.swift:42) held the loop for 312.5 ms (reported at 112.5 ms)`.
    public var description: String {
        let reported = (Double(duration.mainlineNanoseconds) / 1e6).formatted2
        guard let total else { return "\(subject) has held the loop for at least \(reported) ms" }
        let milliseconds = (Double(total.mainlineNanoseconds) / 1e6).formatted2
        return "\(subject) held the loop for \(milliseconds) ms (reported at \(reported) ms)"
    }

    /// `callback 'fetch' (MyApp/Catalogue.swift:42)`, or `iteration (running 'fetch' …)`.
    package var subject: String {
        let running = site.map { "'\(label)' (\($0.location))" } ?? "'\(label)'"
        return kind == .callback ? "callback \(running)" : "iteration (running \(running))"
    }
}

extension Double {
    fileprivate var formatted2: String {
        let rounded = (self * 10).rounded() / 10
        return "\(rounded)"
    }
}
