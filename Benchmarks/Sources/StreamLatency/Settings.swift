import StreamWire

/// What the measuring process runs, from its command line (see `StreamLatency.swift` for the options).
///
/// All operations on `Settings` are thread-safe (it is a value).
struct Settings: Sendable {
    /// Events per second of the paced (latency) phase.
    var rate = 1_000
    /// Seconds of warm-up events before the measured ones, in the paced phase.
    var warmUp = 2.0
    /// Seconds of measured events in the paced phase.
    var seconds = 10.0
    /// Publishing tasks of the flood (sustained) phase.
    var tasks = 8
    /// Publishing tasks of the batched peer's sustained phase.
    var batchedTasks = 64
    /// Events per `publish(contentsOf:)` call of the batched peer (1: plain `publish`).
    var batch = 1
    /// Seconds of warm-up in the flood phase.
    var sustainedWarmUp = 1.0
    /// Seconds measured in the flood phase.
    var sustainedSeconds = 5.0
    /// The longest wait, after the publisher exits, for the last events to arrive.
    var drainTimeout = Duration.seconds(30)
    /// The peers, in the order they run.
    var peers: [Peer] = [.mainline, .batched, .notify]
    /// What this invocation measures (`--mode`).
    var mode = RunMode.latency
    /// Group mode: events in each phase's backlog.
    var groupEvents = 50_000
    /// Group mode: the group's window (`StreamSubscriber.Options.groupWindow`) and the queue's `LIMIT k`.
    var groupBatch = 100
    /// Group mode: the group's lease in seconds (`StreamSubscriber.Options.groupLease`, whose default it is), what a
    /// killed member's events wait for.
    var groupLease = 30.0
    /// Group mode: phases with a `kill -9`, per peer (the takeover's median and maximum are read over them).
    var groupKills = 5
    /// The target of the issue: p99 of the Mainline peer at 1,000 events/s, in nanoseconds.
    var targetP99: Int64 = 50_000_000

    /// Reads the options from `arguments`.
    init(_ arguments: Arguments) throws(Arguments.Invalid) {
        rate = try arguments.value("rate", default: rate)
        warmUp = try arguments.value("warm-up", default: warmUp)
        seconds = try arguments.value("seconds", default: seconds)
        tasks = try arguments.value("tasks", default: tasks)
        batchedTasks = try arguments.value("batched-tasks", default: batchedTasks)
        batch = try arguments.value("batch", default: batch)
        sustainedWarmUp = try arguments.value("sustained-warm-up", default: sustainedWarmUp)
        sustainedSeconds = try arguments.value("sustained-seconds", default: sustainedSeconds)
        drainTimeout = .seconds(try arguments.value("drain-timeout", default: 30))
        let modeName: String = try arguments.value("mode", default: mode.rawValue)
        guard let mode = RunMode(rawValue: modeName) else {
            throw Arguments.Invalid(description: "--mode: unknown mode \(modeName) (latency or group)")
        }
        self.mode = mode
        groupEvents = try arguments.value("group-events", default: groupEvents)
        groupBatch = try arguments.value("group-batch", default: groupBatch)
        groupLease = try arguments.value("group-lease", default: groupLease)
        groupKills = try arguments.value("group-kills", default: groupKills)
        let peerNames: String = try arguments.value("peers", default: "mainline,batched,notify")
        peers = try peerNames.split(separator: ",").map { (name) throws(Arguments.Invalid) -> Peer in
            guard let peer = Peer(rawValue: String(name)) else {
                throw Arguments.Invalid(description: "--peers: unknown peer \(name)")
            }
            return peer
        }
        guard rate > 0, tasks > 0, batchedTasks > 0, batch > 0, seconds > 0, sustainedSeconds > 0, groupEvents > 0,
            groupBatch > 0, groupLease > 0, groupKills >= 0
        else {
            throw Arguments.Invalid(
                description:
                    "--rate, --tasks, --batched-tasks, --batch, --seconds, --sustained-seconds, --group-events, "
                    + "--group-batch and --group-lease must be positive, --group-kills not negative"
            )
        }
    }

    /// The publishing process's options for `peer`'s phase of `shape`, apart from where to publish.
    func loadArguments(for shape: LoadShape, peer: Peer) -> [String] {
        switch shape {
        case .paced: ["--rate", "\(rate)", "--warm-up", "\(warmUp)", "--seconds", "\(seconds)"]
        case .flood:
            ["--tasks", "\(peer == .batched ? batchedTasks : tasks)", "--batch", "\(peer == .batched ? batch : 1)"]
                + ["--warm-up", "\(sustainedWarmUp)", "--seconds", "\(sustainedSeconds)"]
        }
    }
}
