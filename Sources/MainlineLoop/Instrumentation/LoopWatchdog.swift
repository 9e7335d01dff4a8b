/// The stall watchdog's settings: how long one callback or one iteration may hold the loop before it is reported.
///
/// `LoopWatchdog` is a value type; all operations on it are thread-safe. Install it as part of a
/// ``LoopInstrumentation``.
///
/// The watchdog is a thread of its own that looks at the loop in real time. While a watchdog is installed, the loop
/// stamps the start of every callback (a post, a timer, the settle phase, a signal handler, a shutdown hook, a
/// main-queue drain in owner mode) with its label. When one callback — or one iteration made of many callbacks —
/// has held the loop for ``threshold``, the watchdog reports it **once**: a `warning` on the instrumentation's
/// logger naming the label and how long, one increment of `mainline_loop_stalls` (dimension `label`), and a call to
/// ``onStall``. The loop itself is not interrupted: the report is how a service learns that something blocks it.
///
/// Labels come from ``Loop/post(label:fileID:line:_:)``, ``Loop/schedule(after:label:fileID:line:_:)`` and
/// ``Loop/scheduleRepeating(every:label:fileID:line:_:)``; unlabelled work reports `post`, `timer`, `idle`, `settle`,
/// `signal`, `shutdown hook` or `main queue`. A report names the site of the running work too (the line that posted
/// or scheduled it), carries the flight recorder's last events before the stall (``LoopStall/lastEvents``), and is
/// kept in the flight recorder (``LoopFlightRecorder/stallsKept``).
///
/// On ``MainLoop`` the watchdog also sees main-actor work that is not one of the loop's callbacks: in guest mode a
/// block inside `await MainActor.run {}` or a `Task { @MainActor in }` runs on the dispatch main queue beside the loop.
/// The watchdog keeps a heartbeat queued there; when it waits past the threshold while the loop runs nothing of its
/// own, the stall is reported once, labelled `main actor`.
///
/// - Important: Reading the backtrace interrupts the loop thread with a signal, and a thread asleep in `usleep`,
///   `nanosleep` or `sleep` wakes from it early (the call returns `EINTR`). A demo job that "holds the loop" with
///   `usleep(300_000)` runs until the first capture, about one threshold, not 300 ms. Hold it with
///   `Thread.sleep(forTimeInterval:)`, which sleeps again for what remains, or with real work (or set
///   ``backtraceTimeout`` to `.zero`). Waits on locks and condition variables are not disturbed.
///
/// - Note: A stall is detected within a quarter of the threshold of crossing it; the reported ``LoopStall/duration``
///   is how long the work had held the loop at that moment ("has held the loop for at least …"). When the stall ends,
///   the watchdog logs its total ("… held the loop for 312.5 ms in total"), within a quarter of the threshold.
public struct LoopWatchdog: Sendable {
    /// How long one callback or iteration may hold the loop before it counts as a stall.
    public var threshold: Duration
    /// Called on the watchdog's thread with every stall it reports, after logging and counting it.
    public var onStall: (@Sendable (LoopStall) -> Void)?
    /// Whether a ``MainLoop``'s watchdog also reports main-actor work that is not one of the loop's callbacks (a
    /// heartbeat on the dispatch main queue; see above). On by default; a `TestLoop`'s watchdog never does.
    public var watchesMainActor: Bool
    /// How long the watchdog waits for the loop thread's backtrace (``LoopStall/backtrace``) before it reports a
    /// stall without one: 200 ms unless you say otherwise; `.zero` captures none.
    ///
    /// The capture interrupts the loop thread with a signal (see ``LoopBacktrace``); on a machine
    /// whose cores are all busy, the thread may wait that long for one. The watchdog's thread waits meanwhile, so the
    /// report (and any other stall's) comes that much later.
    public var backtraceTimeout: Duration = .milliseconds(200)
    /// Called on the watchdog's thread after every check (for the package's tests).
    package var onCheck: (@Sendable () -> Void)?

    /// Creates watchdog settings.
    ///
    /// - Parameters:
    ///   - threshold: How long one callback or iteration may hold the loop; at least one millisecond (shorter
    ///     thresholds are treated as one millisecond).
    ///   - watchesMainActor: Whether a ``MainLoop``'s watchdog also reports main-actor work outside the loop's
    ///     callbacks, labelled `main actor`.
    ///   - onStall: Called on the watchdog's thread with every stall reported (for example, to dump state).
    public init(
        threshold: Duration = .milliseconds(250),
        watchesMainActor: Bool = true,
        onStall: (@Sendable (LoopStall) -> Void)? = nil
    ) {
        self.threshold = max(threshold, .milliseconds(1))
        self.watchesMainActor = watchesMainActor
        self.onStall = onStall
    }
}

/// One stall the ``LoopWatchdog`` reported.
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
    /// of the threshold of its end); `nil` until then — in the report ``LoopWatchdog/onStall`` receives, in a kept
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
    var subject: String {
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
