/// What the flight recorder keeps: its events and their parts.
extension LoopFlightRecorder {
    /// One thing the loop did, as the recorder kept it.
    ///
    /// `Event` is a value type; all operations on it are thread-safe.
    public struct Event: Sendable, Hashable {
        /// When it happened, in nanoseconds on the loop's clock (`CLOCK_MONOTONIC` on `MainLoop` and `EventLoop`,
        /// virtual time on `TestLoop`): for a span of work, when it ended.
        public var nanoseconds: UInt64
        /// What happened.
        public var kind: Kind

        /// Creates an event.
        ///
        /// - Parameters:
        ///   - nanoseconds: When it happened, on the loop's clock.
        ///   - kind: What happened.
        public init(nanoseconds: UInt64, kind: Kind) {
            self.nanoseconds = nanoseconds
            self.kind = kind
        }
    }

    /// The kinds of ``Event``.
    public enum Kind: Sendable, Hashable {
        /// A stretch of iterations, summed (one per ``Interval/span``, 10 ms of activity at most).
        case interval(Interval)
        /// One piece of work ran longer than ``Settings/slowWorkThreshold``.
        case slowWork(SlowWork)
        /// The stall watchdog reported a stall (see `LoopWatchdog`).
        case stall(LoopStall)
        /// A named mailbox dropped values since the last such event.
        case mailboxDrops(mailbox: String, count: Int)
    }

    /// Iterations summed over a short stretch: how busy the loop was, and with what.
    ///
    /// `Interval` is a value type; all operations on it are thread-safe. Times are whole microseconds.
    public struct Interval: Sendable, Hashable {
        /// From the start of the first iteration to the end of the last, waits between them included.
        public var span: Duration
        /// Iterations in the stretch.
        public var iterations: Int
        /// Iterations that began by waking from a wait (for I/O, a timer, a post).
        public var wakeUps: Int
        /// Time in the timer phase.
        public var timers: Duration
        /// Time in the post phase.
        public var posts: Duration
        /// Time in the settle phase.
        public var settle: Duration
        /// Time in the idle phase.
        public var idle: Duration
        /// The busiest iteration.
        public var longestIteration: Duration
        /// Posted jobs run.
        public var postsRun: Int
        /// Timer firings.
        public var timersFired: Int
        /// Settle notifications delivered.
        public var settleDeliveries: Int

        /// Time in the loop's phases: what the loop spent running work.
        public var busy: Duration { timers + posts + settle + idle }
    }

    /// What ran too long, where it came from, and how precisely the recorder knows.
    ///
    /// `SlowWork` is a value type; all operations on it are thread-safe.
    ///
    /// The recorder times work in runs, to stay cheap when jobs are tiny: one job at a time while jobs take
    /// microseconds, runs of up to 128 while they take nanoseconds (a clock read costs about 20 ns). A run that took
    /// longer than the threshold is recorded with the site its jobs came from: exact when the run was one job
    /// (``runLength`` 1) or all its jobs came from one site (``sitesInRun`` 1), the run's first site otherwise. After
    /// a slow run the recorder times jobs one at a time again.
    public struct SlowWork: Sendable, Hashable {
        /// What kind of work.
        public var kind: WorkKind
        /// Where it came from, when known.
        public var site: LoopSite?
        /// How long it (its run) took.
        public var duration: Duration
        /// How many pieces of work the timed run held (1: this piece alone).
        public var runLength: Int
        /// How many different sites the run's pieces came from, as far as the recorder could still read them.
        public var sitesInRun: Int
    }

    /// The kinds of work a loop runs.
    public enum WorkKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// A posted closure.
        case post
        /// A timer firing.
        case timer
        /// An idle body.
        case idle
        /// A settle notification's delivery.
        case settle
        /// Main-actor work that is not one of the loop's callbacks, drained from the main dispatch queue in owner mode
        /// (`Task { @MainActor in }`, `DispatchQueue.main.async`): timed as a whole, one drain at a time.
        case mainQueue

        /// `post`, `timer`, `idle`, `settle` or `mainQueue`.
        public var description: String { rawValue }
    }
}
