/// A loop of the snapshot document (`MainLoop`, `EventLoop`, `TestLoop`): its counters, loop delay, recent slow work
/// and stalls, the job running now, and — from the loop's own snapshot — its clock, timers, waiting posts, settle
/// notifications and idle bodies. Its ``description`` is `LoopSnapshot`'s description.
///
/// `LoopSummary` is a value type; all operations on it are thread-safe.
package struct LoopSummary: Codable, Sendable, Equatable {
    /// `main`, an `EventLoop`'s name.
    @InspectorField package var name: String? = nil
    /// `MainLoop`, `EventLoop` or `TestLoop`.
    @InspectorField package var kind: String? = nil
    /// As in `LoopSnapshot.State`.
    @InspectorField package var state: String? = nil
    /// The phase the loop is in.
    @InspectorField package var phase: String? = nil
    /// Iterations so far.
    @InspectorField package var iterations: Int? = nil
    /// The loop's clock when its snapshot was taken, in milliseconds: the instant `timers`' `dueInMs` count from.
    @InspectorField package var nowMs: Double? = nil
    /// Posted jobs run.
    @InspectorField package var postsRun: Int? = nil
    /// Posted jobs waiting.
    @InspectorField package var postsPending: Int? = nil
    /// Posts refused.
    @InspectorField package var postsRejected: Int? = nil
    /// Posts released unrun because a drain deadline had passed.
    @InspectorField package var postsDiscarded: Int? = nil
    /// Timer firings.
    @InspectorField package var timersFired: Int? = nil
    /// Settle notifications delivered (0 for an `EventLoop`, which has no settle phase); `null` when the loop has not
    /// taken a snapshot.
    @InspectorField package var settleDeliveries: Int? = nil
    /// Settle notifications waiting for delivery (0 for an `EventLoop`, which has no settle phase).
    @InspectorField package var settlePending: Int? = nil
    /// Idle bodies waiting for an idle phase.
    @InspectorField package var idlePending: Int? = nil
    /// How many timers are scheduled: `timers` lists the soonest ``timerLimit`` of them.
    @InspectorField package var timersScheduled: Int? = nil
    /// The share of the last second spent in the loop's phases rather than waiting, in percent.
    @InspectorField package var busyPercent: Double? = nil
    /// The loop delay.
    @InspectorField package var delay: Delay? = nil
    /// The job running now, when a watchdog stamps the loop's work; `null` otherwise or when idle.
    @InspectorField package var running: Running? = nil
    /// The last stalls, oldest first.
    @InspectorList package var stalls: [Stall] = []
    /// The slowest recent jobs, one per site, slowest first.
    @InspectorList package var slowest: [SlowJob] = []
    /// The flight recorder's size.
    @InspectorField package var recorder: Recorder? = nil
    /// Pending timers, soonest first (at most ``timerLimit``); `null` when the loop has not taken a snapshot.
    @InspectorField package var timers: [Timer]? = nil
    /// Where the waiting posts came from; `null` when the loop has not taken a snapshot.
    @InspectorField package var pendingPostsBySite: [PendingSite]? = nil
    /// Whether `timers` and `pendingPostsBySite` are from now, or from the last snapshot a stalled loop took.
    @InspectorField package var snapshotFresh: Bool? = nil

    /// How many timers `timers` lists at most: the soonest, `timersScheduled` says how many there are in all.
    package static let timerLimit = 50

    /// A loop known by `name` and `kind`, every other field empty.
    package init(name: String?, kind: String?, state: String?) {
        self.name = name
        self.kind = kind
        self.state = state
    }

    /// The loop delay: percentiles and histogram.
    ///
    /// `Delay` is a value type; all operations on it are thread-safe.
    package struct Delay: Codable, Sendable, Equatable {
        @InspectorField package var p50Ms: Double? = nil
        @InspectorField package var p99Ms: Double? = nil
        @InspectorField package var maxMs: Double? = nil
        @InspectorField package var samples: Int? = nil
        @InspectorList package var buckets: [Bucket] = []

        /// A delay of these percentiles and buckets.
        package init(p50Ms: Double?, p99Ms: Double?, maxMs: Double?, samples: Int?, buckets: [Bucket]) {
            self.p50Ms = p50Ms
            self.p99Ms = p99Ms
            self.maxMs = maxMs
            self.samples = samples
            self.buckets = buckets
        }
    }

    /// A bucket of the loop-delay histogram: how many delays were at most `upToMs` (`null`: the last, unbounded).
    ///
    /// `Bucket` is a value type; all operations on it are thread-safe.
    package struct Bucket: Codable, Sendable, Equatable {
        @InspectorField package var upToMs: Double? = nil
        @InspectorField package var count: Int? = nil

        /// A bucket.
        package init(upToMs: Double?, count: Int?) {
            self.upToMs = upToMs
            self.count = count
        }
    }

    /// The job running now: where it came from and for how long (0 for one that began as the document was made).
    ///
    /// `Running` is a value type; all operations on it are thread-safe.
    package struct Running: Codable, Sendable, Equatable {
        @InspectorField package var site: String? = nil
        @InspectorField package var label: String? = nil
        @InspectorField package var forMs: Double? = nil

        /// The job running now.
        package init(site: String?, label: String?, forMs: Double?) {
            self.site = site
            self.label = label
            self.forMs = forMs
        }
    }

    /// One site's slowest recent job: its kind (`post`, `timer`, …), how long, how often the site was slow, how long
    /// ago.
    ///
    /// `SlowJob` is a value type; all operations on it are thread-safe.
    package struct SlowJob: Codable, Sendable, Equatable {
        @InspectorField package var site: String? = nil
        @InspectorField package var label: String? = nil
        @InspectorField package var kind: String? = nil
        @InspectorField package var durationMs: Double? = nil
        @InspectorField package var count: Int? = nil
        @InspectorField package var runLength: Int? = nil
        @InspectorField package var ageMs: Double? = nil

        /// A slow job.
        package init(
            site: String?,
            label: String?,
            kind: String?,
            durationMs: Double?,
            count: Int? = nil,
            runLength: Int? = nil,
            ageMs: Double?
        ) {
            self.site = site
            self.label = label
            self.kind = kind
            self.durationMs = durationMs
            self.count = count
            self.runLength = runLength
            self.ageMs = ageMs
        }
    }

    /// A pending timer.
    ///
    /// `Timer` is a value type; all operations on it are thread-safe.
    package struct Timer: Codable, Sendable, Equatable {
        @InspectorField package var site: String? = nil
        @InspectorField package var label: String? = nil
        /// Negative for a timer that is due and has not fired yet.
        @InspectorField package var dueInMs: Double? = nil
        @InspectorField package var repeating: Bool? = nil
        @InspectorField package var firings: Int? = nil
        /// A repeating timer's period; `null` for a one-shot timer.
        @InspectorField package var intervalMs: Double? = nil
        /// How many firings a repeating timer skipped because the loop reached them late.
        @InspectorField package var skippedFirings: Int? = nil

        /// A timer.
        package init(
            site: String?,
            label: String?,
            dueInMs: Double?,
            repeating: Bool?,
            firings: Int? = nil,
            intervalMs: Double? = nil,
            skippedFirings: Int? = nil
        ) {
            self.site = site
            self.label = label
            self.dueInMs = dueInMs
            self.repeating = repeating
            self.firings = firings
            self.intervalMs = intervalMs
            self.skippedFirings = skippedFirings
        }
    }

    /// How many waiting posts came from one site.
    ///
    /// `PendingSite` is a value type; all operations on it are thread-safe.
    package struct PendingSite: Codable, Sendable, Equatable {
        @InspectorField package var site: String? = nil
        @InspectorField package var label: String? = nil
        @InspectorField package var count: Int? = nil

        /// A site's waiting posts.
        package init(site: String?, label: String?, count: Int?) {
            self.site = site
            self.label = label
            self.count = count
        }
    }

    /// The flight recorder's size.
    ///
    /// `Recorder` is a value type; all operations on it are thread-safe.
    package struct Recorder: Codable, Sendable, Equatable {
        @InspectorField package var capacityBytes: Int? = nil
        @InspectorField package var events: Int? = nil

        /// A recorder's size.
        package init(capacityBytes: Int?, events: Int?) {
            self.capacityBytes = capacityBytes
            self.events = events
        }
    }
}
