/// A snapshot document of the inspector (schema 1), read liberally: every field may be missing.
///
/// `InspectorSnapshot` is a value type; all operations on it are thread-safe.
struct InspectorSnapshot {
    var schema: Int?
    var pid: Int?
    var process: String?
    var uptimeSeconds: Double?
    var loops: [LoopSummary]
    var mailboxes: [MailboxSummary]
    var viewModels: [ViewModelSummary]
    var coordinators: [CoordinatorSummary]

    init(_ document: [String: Any]) {
        schema = document.integer("schema")
        pid = document.integer("pid")
        process = document.string("process")
        uptimeSeconds = document.number("uptimeSeconds")
        loops = document.objects("loops").map(LoopSummary.init)
        mailboxes = document.objects("mailboxes").map(MailboxSummary.init)
        viewModels = document.objects("viewModels").map(ViewModelSummary.init)
        coordinators = document.objects("coordinators").map(CoordinatorSummary.init)
    }
}

/// One loop of a snapshot.
struct LoopSummary {
    /// The loop-delay percentiles and histogram.
    struct Delay {
        var p50Ms: Double?
        var p99Ms: Double?
        var maxMs: Double?
        var samples: Int?
        var buckets: [(upToMs: Double?, count: Int)]

        init(_ object: [String: Any]) {
            p50Ms = object.number("p50Ms")
            p99Ms = object.number("p99Ms")
            maxMs = object.number("maxMs")
            samples = object.integer("samples")
            buckets = object.objects("buckets").map { ($0.number("upToMs"), $0.integer("count") ?? 0) }
        }
    }

    /// A job: the one running now, a slow one, a stall's.
    struct Job {
        var site: String?
        var label: String?
        var kind: String?
        var durationMs: Double?
        var ageMs: Double?

        init(_ object: [String: Any]) {
            site = object.string("site")
            label = object.string("label")
            kind = object.string("kind")
            durationMs = object.number("durationMs") ?? object.number("forMs")
            ageMs = object.number("ageMs")
        }
    }

    /// A stall: the job that held the loop, its backtrace and what happened just before.
    struct Stall {
        var job: Job
        /// Whether the watchdog saw it end (`nil` from an inspector that does not say).
        var ended: Bool?
        /// How long it held the loop in all, once it ended.
        var totalMs: Double?
        var backtrace: [String]
        var lastEvents: [[String: Any]]

        init(_ object: [String: Any]) {
            job = Job(object)
            ended = object.bool("ended")
            totalMs = object.number("totalMs")
            backtrace = object.strings("backtrace")
            lastEvents = object.objects("lastEvents")
        }

        /// `309.0 ms` once it ended; `≥ 109.1 ms`, the watchdog's lower bound at detection, until then.
        var held: String {
            if let totalMs { return Formatting.duration(milliseconds: totalMs) }
            return "≥ " + Formatting.duration(milliseconds: job.durationMs)
        }
    }

    /// A pending timer.
    struct Timer {
        var site: String?
        var label: String?
        var dueInMs: Double?
        var repeating: Bool?

        init(_ object: [String: Any]) {
            site = object.string("site")
            label = object.string("label")
            dueInMs = object.number("dueInMs")
            repeating = object.bool("repeating")
        }
    }

    var name: String
    var kind: String?
    var state: String?
    var iterations: Int?
    var busyPercent: Double?
    var postsRun: Int?
    var postsPending: Int?
    var timersFired: Int?
    var settleDeliveries: Int?
    var delay: Delay?
    var running: Job?
    var stalls: [Stall]
    var slowest: [Job]
    var timers: [Timer]
    var recorderEvents: Int?
    var recorderCapacityBytes: Int?

    init(_ object: [String: Any]) {
        name = object.string("name") ?? "?"
        kind = object.string("kind")
        state = object.string("state")
        iterations = object.integer("iterations")
        busyPercent = object.number("busyPercent")
        postsRun = object.integer("postsRun")
        postsPending = object.integer("postsPending")
        timersFired = object.integer("timersFired")
        settleDeliveries = object.integer("settleDeliveries")
        delay = object.object("delay").map(Delay.init)
        running = object.object("running").map(Job.init)
        stalls = object.objects("stalls").map(Stall.init)
        slowest = object.objects("slowest").map(Job.init)
        timers = object.objects("timers").map(Timer.init)
        recorderEvents = object.object("recorder")?.integer("events")
        recorderCapacityBytes = object.object("recorder")?.integer("capacityBytes")
    }

    /// What tells two samples of one loop apart from another loop's: its name and kind.
    var identity: String { "\(name)/\(kind ?? "")" }
}

/// One mailbox of a snapshot.
struct MailboxSummary {
    var name: String?
    var kind: String?
    var depth: Int?
    var capacity: Int?
    var dropped: Int?
    var coalesced: Int?

    init(_ object: [String: Any]) {
        name = object.string("name")
        kind = object.string("kind")
        depth = object.integer("depth")
        capacity = object.integer("capacity")
        dropped = object.integer("dropped")
        coalesced = object.integer("coalesced")
    }
}

/// One view model of a snapshot.
struct ViewModelSummary {
    var type: String
    var state: String?
    var id: Int?

    init(_ object: [String: Any]) {
        type = object.string("type") ?? "?"
        state = object.string("state")
        id = object.integer("id")
    }
}

/// One coordinator, or container of screens, of a snapshot.
struct CoordinatorSummary {
    var type: String
    var state: String?
    var id: Int?
    var stack: [String]

    init(_ object: [String: Any]) {
        type = object.string("type") ?? "?"
        state = object.string("state")
        id = object.integer("id")
        stack = object.strings("stack")
    }
}
