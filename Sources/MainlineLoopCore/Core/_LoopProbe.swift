/// The one probe of a loop's phases: each phase calls it once where it begins (``begin(_:)``) and once where it ends
/// (``end(_:count:posts:)``), and around each piece of work it runs (``willRun(_:site:)``, ``ran(_:site:)``). It reads
/// the clock at most once at each boundary (inside a phase, only the recorder's windows read it: once per window of up
/// to 128 pieces, to find slow work), and every sink reads what it measured:
///
/// - the progress counters a snapshot reports (``progress``): the phase marker at the start, the count at the end;
/// - the flight recorder (``recorder``): the run's start and end times, the windows of its pieces;
/// - the instruments (``measuresBusy``): the phases' busy time (``busy``) and whether work other than posts, timers
///   and settle ran (``ranOtherWork``); the counts they report are the progress counters';
/// - the stall watchdog's stamp (``monitor``): the phase's label or each piece's site, with the probe's clock read
///   when the loop keeps real time, and the end of the last phase when the loop goes idle.
///
/// `progress` and `recorder` may be read from any thread; everything else must be called where the loop runs (the
/// main actor for `MainLoop` and `TestLoop`, the loop thread for an `EventLoop`), which serializes it.
package final class _LoopProbe: @unchecked Sendable {
    // @unchecked Sendable: `progress` and `recorder` are thread-safe; every `var` is touched only where the loop runs
    // (see the type's comment), which serializes them.

    /// The phases a probe times, each with what it stamps.
    package enum Kind {
        /// Due timers (one piece per timer).
        case timers
        /// Posted work (one piece per job).
        case posts
        /// Posted work drained while the loop shuts down: counted and recorded as posts, under the `stopping` marker.
        case drainingPosts
        /// Idle bodies (one piece per body).
        case idle
        /// Settle deliveries (one piece per delivery).
        case settle
        /// The handlers of a signal (one piece).
        case signal
        /// A drain of the dispatch main queue in owner mode (one piece).
        case mainQueue
        /// A shutdown hook (one piece): stamped for the watchdog, not timed.
        case shutdownHook
    }

    /// The phase and counters a snapshot reports. Thread-safe.
    package let progress = _LoopProgress()
    /// The loop's flight recorder. Reading it is thread-safe.
    package let recorder: LoopFlightRecorder
    // Unchecked exclusivity on the stored state below that every iteration touches: it is read and written in place,
    // never held across a call out (the type's comment says what serializes it); the dynamic checks were a measurable
    // part of an iteration (Benchmarks/HISTORY.md, "Speed").
    /// The watchdog's stamp, while a watchdog watches the loop (an inspector reads it through the recorder).
    @exclusivity(unchecked) package var monitor: _StallMonitor? {
        didSet { recorder.monitorForInspection = monitor }
    }
    /// Whether the instruments read the phases' busy time: phases are then timed even when the recorder is off.
    @exclusivity(unchecked) package var measuresBusy = false {
        didSet { _ = takeIterationTotals() }
    }
    /// The loop's clock, in nanoseconds.
    private let clock: @Sendable () -> UInt64
    /// Whether ``clock`` is `CLOCK_MONOTONIC` (the watchdog's clock), so that a stamp may use its reading.
    private let clockIsMonotonic: Bool
    /// Nanoseconds the iteration spent in timed phases, while ``measuresBusy``.
    @exclusivity(unchecked) private var busy: UInt64 = 0
    /// Whether a signal's handlers or a main-queue drain ran in the iteration, while ``measuresBusy``.
    @exclusivity(unchecked) private var ranOtherWork = false
    /// Whether a phase that adds to ``busy`` is running: one that begins inside it (a `TestLoop` signal delivered by
    /// a post) is already being measured.
    @exclusivity(unchecked) private var isMeasuringPhase = false
    /// When the last timed phase ended (the loop's clock).
    @exclusivity(unchecked) private var lastPhaseEnd: UInt64 = 0
    /// Whether the watchdog saw a stamp since the last timed phase ended: its idle time is then read from the clock.
    @exclusivity(unchecked) private var monitorStampedUntimed = false

    /// - Parameter clock: The loop's clock in nanoseconds (a `TestLoop`'s virtual time); `nil` for `CLOCK_MONOTONIC`.
    package init(recorder settings: LoopFlightRecorder.Settings, clock: (@Sendable () -> UInt64)?) {
        let reading = clock ?? { _MonotonicClock.nanoseconds() }
        self.clock = reading
        clockIsMonotonic = clock == nil
        recorder = LoopFlightRecorder(settings: settings, clock: reading)
    }

    // MARK: Phases

    /// A phase of `kind` begins: stamps its marker for snapshots. Reads no clock: that waits for its first piece.
    @inline(__always)
    package func begin(_ kind: Kind) -> _PhaseRun {
        if let phase = kind.snapshotPhase { progress.enter(phase) }
        return _PhaseRun(kind: kind, monitor: monitor)
    }

    /// A piece of the phase's work from `site` is about to run. The first one starts the phase's timing: one clock
    /// read, shared by the recorder, the instruments and the watchdog.
    @inline(__always)
    package func willRun(_ run: inout _PhaseRun, site: LoopSite?) {
        if !run.started {
            start(&run, site: site)
        } else if let monitor = run.monitor, run.kind.stampsEachPiece {
            monitor.begin(run.kind.label, site: site, at: nil)
        }
    }

    /// A piece of the phase's work from `site` has run (not a post: see ``ranPost(_:from:)``).
    @inline(__always)
    package func ran(_ run: inout _PhaseRun, site: LoopSite?) {
        recorder.ran(&run.work, site: site)
    }

    /// A posted job of the phase has run: its site stays in its slot of `posts`.
    @inline(__always)
    func ranPost(_ run: inout _PhaseRun, from posts: _JobQueue) {
        recorder.ranPost(&run.work, from: posts)
    }

    /// The phase is over, with `count` pieces run (the progress counters count posts and timers): one clock read,
    /// if the phase was timed, ends the recorder's run and the busy time. For a post phase, pass the queue (the
    /// recorder reads the sites of a slow window from its slots).
    @inline(__always)
    package func end(_ run: inout _PhaseRun, count: Int, posts: _JobQueue? = nil) {
        switch run.kind {
        case .posts, .drainingPosts: progress.didRunPosts(count)
        case .timers: progress.didFireTimers(count)
        case .idle, .settle, .signal, .mainQueue, .shutdownHook: break
        }
        if run.timed { finish(&run, posts: posts) }
    }

    private func start(_ run: inout _PhaseRun, site: LoopSite?) {
        run.started = true
        let work = run.kind.work
        let recording = work != nil && recorder.isRecording
        run.addsBusy = measuresBusy && run.kind.isMeasured && !isMeasuringPhase
        run.timed = recording || run.addsBusy
        if run.timed { run.start = clock() }
        if run.addsBusy {
            isMeasuringPhase = true
            if run.kind.isOtherWork { ranOtherWork = true }
        }
        if recording, let work { run.work = recorder.beginRun(work, at: run.start) }
        if let monitor = run.monitor {
            let stamped = run.kind.stampsEachPiece ? site : nil
            monitor.begin(run.kind.label, site: stamped, at: run.timed && clockIsMonotonic ? run.start : nil)
            if !run.timed { monitorStampedUntimed = true }
        }
    }

    private func finish(_ run: inout _PhaseRun, posts: _JobQueue?) {
        // When the recorder closed a window on the phase's last piece, it read the clock right then: the phase ends
        // at that reading.
        let windowJustClosed = run.work.recording && run.work.pieces > 0 && run.work.countdown == run.work.stride
        let now = windowJustClosed ? run.work.windowStart : clock()
        if run.work.recording { recorder.endRun(&run.work, posts: posts, at: now) }
        if run.addsBusy {
            busy &+= now &- run.start
            isMeasuringPhase = false
        }
        lastPhaseEnd = now
    }

    // MARK: Between phases

    /// The loop is about to wait for I/O or time.
    @inline(__always)
    package func willWait() {
        progress.enter(.waiting)
        recorder.willWait()
        if let monitor { monitor.idle(at: idleTime()) }
    }

    /// The iteration is over.
    @inline(__always)
    package func endIteration() {
        progress.endIteration()
        recorder.endIteration()
        if let monitor { monitor.idle(at: idleTime()) }
    }

    /// The loop is shutting down: stamps the marker for snapshots.
    package func stopping() {
        progress.enter(.stopping)
    }

    /// When the loop's work ended, for the watchdog: the last timed phase's end, unless a stamp came after it or the
    /// clock is not the watchdog's (then the watchdog reads its own).
    private func idleTime() -> UInt64? {
        defer { monitorStampedUntimed = false }
        return clockIsMonotonic && !monitorStampedUntimed ? lastPhaseEnd : nil
    }

    /// The iteration's busy time and whether other work ran, for the instruments; starts the next iteration's.
    package func takeIterationTotals() -> (busy: UInt64, ranOtherWork: Bool) {
        defer {
            busy = 0
            ranOtherWork = false
        }
        return (busy, ranOtherWork)
    }
}

extension _LoopProbe.Kind {
    /// The marker a snapshot reports while the phase runs (`nil`: the phase leaves it as it is).
    var snapshotPhase: LoopSnapshot.Phase? {
        switch self {
        case .timers: .timers
        case .posts, .signal, .mainQueue: .posts
        case .settle: .settle
        case .drainingPosts, .idle, .shutdownHook: nil
        }
    }

    /// What the flight recorder records the phase's work as (`nil`: it does not record it).
    var work: LoopFlightRecorder.WorkKind? {
        switch self {
        case .timers: .timer
        case .posts, .drainingPosts: .post
        case .idle: .idle
        case .settle: .settle
        case .mainQueue: .mainQueue
        case .signal, .shutdownHook: nil
        }
    }

    /// Whether the watchdog is told each piece's site (else the phase's label once, at its start).
    var stampsEachPiece: Bool {
        switch self {
        case .timers, .posts, .drainingPosts, .idle: true
        case .settle, .signal, .mainQueue, .shutdownHook: false
        }
    }

    /// What a stall report calls the phase's work.
    var label: StaticString {
        switch self {
        case .timers: "timer"
        case .posts, .drainingPosts: "post"
        case .idle: "idle"
        case .settle: "settle"
        case .signal: "signal"
        case .mainQueue: "main queue"
        case .shutdownHook: "shutdown hook"
        }
    }

    /// Whether the phase's time is the iteration's busy time for the instruments.
    var isMeasured: Bool { self != .shutdownHook }

    /// Whether the instruments count an iteration that ran it as one that did work, whatever its counts say.
    var isOtherWork: Bool { self == .signal || self == .mainQueue }
}

/// One phase as its probe times it: a value on the loop's stack (the loop runs one phase at a time, or one inside
/// another).
package struct _PhaseRun {
    let kind: _LoopProbe.Kind
    /// The watchdog's stamp, read once where the phase began.
    let monitor: _StallMonitor?
    /// The recorder's run, once the first piece began (one that records nothing before, or when not recording).
    var work = _WorkRun.notRecording
    /// Whether the first piece began.
    var started = false
    /// Whether the phase read the clock where its work began, and reads it again where it ends.
    var timed = false
    /// Whether the phase adds its time to the instruments' busy time.
    var addsBusy = false
    /// When the phase's work began (the loop's clock), when timed.
    var start: UInt64 = 0

    init(kind: _LoopProbe.Kind, monitor: _StallMonitor?) {
        self.kind = kind
        self.monitor = monitor
    }
}
