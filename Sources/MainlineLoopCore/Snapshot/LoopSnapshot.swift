/// What a loop holds and has done, at one moment: pending posts, timers, settle notifications, the iteration and
/// phase it is in, its counters and its state. For logs and debugging endpoints, not for control flow.
///
/// `LoopSnapshot` is a value type; all operations on it are thread-safe.
///
/// Take one with ``SerialLoop/snapshot()`` on the main actor (`MainLoop`, `TestLoop`) — from any other thread in async
/// code with `await MainLoop.main.snapshot()` — or with `EventLoop.snapshot()` from anywhere, without waiting. Its
/// ``description`` is meant for an operator: one line per timer, soonest first (the soonest 50), deadlines relative to
/// ``now`` — the values an inspector serves of the loop, in words.
///
/// ```swift
/// // On SIGUSR1, log what the main loop is doing.
/// MainLoop.main.onSignal(.sigusr1) { _ in
///     logger.info("\(MainLoop.main.snapshot())")
/// }
/// ```
///
/// ```text
/// MainLoop: owner, iteration 1843 (posts), now 5012.250 s
///   posts: 2 pending, 10394 run, 0 rejected, 0 discarded
///   settle: 0 pending, 512 delivered
///   timers: 2 scheduled, 1840 fired
///     in 0.250 s  heartbeat  every 1.000 s, fired 1839
///     in 29.500 s  session-expiry
/// ```
///
/// A snapshot is read on the loop (or, for an `EventLoop`, under its locks) in O(timers + settle notifications),
/// and costs the loop nothing until someone asks for one: the counters it reports are kept once per phase, not per
/// post. See the article "Reading a loop snapshot" (`MainlineLoop`).
public struct LoopSnapshot: Hashable, Sendable {
    /// Where a loop is in its life when the snapshot is taken.
    ///
    /// `State` is a value type; all operations on it are thread-safe.
    public enum State: String, Hashable, Sendable, CustomStringConvertible {
        /// A `MainLoop` that nothing runs yet (see `MainLoop.State.idle`).
        case idle
        /// A `MainLoop` pumped from the dispatch main queue (see `MainLoop.State.guest`).
        case guest
        /// A `MainLoop` running on the process main thread (see `MainLoop.State.owner`).
        case owner
        /// An `EventLoop` whose thread runs it, or a `TestLoop` that the test steps.
        case running
        /// `stop()` was called: posts are refused, work already posted is finishing.
        case stopping
        /// Shut down. Terminal.
        case stopped

        /// The state's name: `idle`, `guest`, `owner`, `running`, `stopping` or `stopped`.
        public var description: String { rawValue }
    }

    /// What the loop is doing when the snapshot is taken: which phase of an iteration (DESIGN.md §2) is running.
    ///
    /// `Phase` is a value type; all operations on it are thread-safe.
    ///
    /// A snapshot taken on the loop reads the phase of the code that took it: from a timer callback ``timers``, from
    /// posted work or a signal handler ``posts``, from a settle delivery ``settle``. An `EventLoop` snapshot taken on
    /// another thread reads what the loop thread is doing at that moment.
    public enum Phase: String, Hashable, Sendable, CustomStringConvertible {
        /// Between iterations: waiting for I/O, a post or the next timer — or, in guest mode, running main-actor
        /// work outside an iteration (a `Task { @MainActor in }`), or between a `TestLoop`'s steps.
        case waiting
        /// Firing due timers.
        case timers
        /// Running posted work and I/O: posts, executor jobs, main-queue jobs (owner mode), signal handlers.
        case posts
        /// Delivering settle notifications.
        case settle
        /// Shutting down: draining posted work, settling, running shutdown hooks.
        case stopping
        /// Shut down: the loop runs nothing any more.
        case stopped

        /// The phase's name: `waiting`, `timers`, `posts`, `settle`, `stopping` or `stopped`.
        public var description: String { rawValue }
    }

    /// One scheduled timer.
    ///
    /// `Timer` is a value type; all operations on it are thread-safe.
    public struct Timer: Hashable, Sendable {
        /// The label given to `schedule(after:label:_:)` or `scheduleRepeating(every:label:_:)`; `nil` for a timer
        /// scheduled without one.
        public var label: String?
        /// Where the timer was scheduled (`nil` only for a snapshot built by hand without one).
        public var site: LoopSite?
        /// When the timer fires next, on the loop's clock.
        public var deadline: LoopInstant
        /// The period of a repeating timer; `nil` for a one-shot timer.
        public var interval: Duration?
        /// How many times the timer has fired.
        public var firings: Int
        /// How many firings a repeating timer skipped because the loop reached them late.
        public var skippedFirings: Int

        /// Creates the description of a timer.
        ///
        /// - Parameters:
        ///   - label: The timer's label, if it has one.
        ///   - site: Where it was scheduled.
        ///   - deadline: When it fires next.
        ///   - interval: The period of a repeating timer; `nil` for a one-shot timer.
        ///   - firings: How many times it has fired.
        ///   - skippedFirings: How many firings it skipped.
        public init(
            label: String?,
            site: LoopSite? = nil,
            deadline: LoopInstant,
            interval: Duration? = nil,
            firings: Int = 0,
            skippedFirings: Int = 0
        ) {
            self.label = label
            self.site = site
            self.deadline = deadline
            self.interval = interval
            self.firings = firings
            self.skippedFirings = skippedFirings
        }
    }

    /// How many of the waiting posts came from one site.
    ///
    /// `SiteCount` is a value type; all operations on it are thread-safe.
    public struct SiteCount: Hashable, Sendable {
        /// Where the posts came from.
        public var site: LoopSite
        /// How many of them wait.
        public var count: Int

        /// Creates a count of waiting posts from one site.
        ///
        /// - Parameters:
        ///   - site: Where the posts came from.
        ///   - count: How many wait.
        public init(site: LoopSite, count: Int) {
            self.site = site
            self.count = count
        }
    }

    /// What the loop has done since it was created.
    ///
    /// `Counters` is a value type; all operations on it are thread-safe.
    public struct Counters: Hashable, Sendable {
        /// Iterations completed.
        public var iterations: Int
        /// Posted closures run (for an `EventLoop`, executor jobs too), including those run while shutting down.
        public var postsRun: Int
        /// Posts refused because the loop was full (``LoopBudgets/maxPendingPosts``).
        public var postsRejected: Int
        /// Posts released unrun by `stop(drainDeadline:)` because the drain deadline had passed.
        public var postsDiscarded: Int
        /// Timer firings (a repeating timer counts once per firing).
        public var timersFired: Int
        /// Settle notifications delivered (zero for an `EventLoop`, which has no settle phase).
        public var settleDeliveries: Int

        /// Creates a set of counters.
        ///
        /// - Parameters:
        ///   - iterations: Iterations completed.
        ///   - postsRun: Posted closures run.
        ///   - postsRejected: Posts refused because the loop was full.
        ///   - postsDiscarded: Posts released unrun at a drain deadline.
        ///   - timersFired: Timer firings.
        ///   - settleDeliveries: Settle notifications delivered.
        public init(
            iterations: Int = 0,
            postsRun: Int = 0,
            postsRejected: Int = 0,
            postsDiscarded: Int = 0,
            timersFired: Int = 0,
            settleDeliveries: Int = 0
        ) {
            self.iterations = iterations
            self.postsRun = postsRun
            self.postsRejected = postsRejected
            self.postsDiscarded = postsDiscarded
            self.timersFired = timersFired
            self.settleDeliveries = settleDeliveries
        }
    }

    /// Which loop this is: `MainLoop`, `TestLoop`, `EventLoop(<name>)`.
    public var loop: String
    /// Where the loop is in its life.
    public var state: State
    /// The loop's clock when the snapshot was taken; ``Timer/deadline``s are on the same clock.
    public var now: LoopInstant
    /// The number of the iteration in progress (1 for the first one); while ``phase`` is ``Phase/waiting``, of the
    /// iteration that runs next. Always ``Counters/iterations`` + 1.
    public var iteration: Int { counters.iterations + 1 }
    /// What the loop is doing.
    public var phase: Phase
    /// Posts accepted and not yet run (for an `EventLoop`, executor jobs too).
    public var pendingPosts: Int
    /// Settle notifications waiting for delivery (zero for an `EventLoop`).
    public var pendingSettleNotifications: Int
    /// Idle bodies registered (``SerialLoop/whenIdle(_:fileID:line:)``) and waiting for an idle phase; cancelled ones do not count.
    public var pendingIdleBodies: Int
    /// Where the waiting posts came from, the most frequent site first (ties in posting order): at most 10 sites, from
    /// the first 10,000 waiting posts. Empty for an `EventLoop`, whose snapshot is taken off its thread and so cannot
    /// read its queue.
    public var pendingPostsBySite: [SiteCount] = []
    /// The scheduled timers, soonest first (timers due at the same instant in the order they fire).
    public var timers: [Timer]
    /// What the loop has done so far.
    public var counters: Counters

    /// Creates a snapshot.
    ///
    /// Loops create their own (``SerialLoop/snapshot()``); this initializer is for loops outside the package and for
    /// tests of code that formats snapshots.
    ///
    /// - Parameters:
    ///   - loop: Which loop this is, for the first line of ``description``.
    ///   - state: Where the loop is in its life.
    ///   - now: The loop's clock.
    ///   - phase: What the loop is doing.
    ///   - pendingPosts: Posts accepted and not yet run.
    ///   - pendingSettleNotifications: Settle notifications waiting for delivery.
    ///   - pendingIdleBodies: Idle bodies waiting for an idle phase.
    ///   - timers: The scheduled timers, soonest first.
    ///   - counters: What the loop has done so far.
    public init(
        loop: String,
        state: State,
        now: LoopInstant,
        phase: Phase = .waiting,
        pendingPosts: Int = 0,
        pendingSettleNotifications: Int = 0,
        pendingIdleBodies: Int = 0,
        timers: [Timer] = [],
        counters: Counters = Counters()
    ) {
        self.loop = loop
        self.state = state
        self.now = now
        self.phase = phase
        self.pendingPosts = pendingPosts
        self.pendingSettleNotifications = pendingSettleNotifications
        self.pendingIdleBodies = pendingIdleBodies
        self.timers = timers
        self.counters = counters
    }
}
