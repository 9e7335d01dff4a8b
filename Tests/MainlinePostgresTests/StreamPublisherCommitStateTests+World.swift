#if Postgres
import MainlineTesting
import PostgresNIO
import _MainlineTestSupport

@testable import MainlinePostgres

/// Group commit's state machine in a simulated world: callers that publish and give up, commit tasks that take their
/// batch, wait for a connection, send and are answered (or fail), a deadline watch, and a clock. The world chooses the
/// next event among those that can happen now (seeded), performs the machine's actions as the publisher does, and
/// checks the invariants after every step (``checkInvariants()``).
///
/// `CommitWorld` is **not** thread-safe: one test runs it.
struct CommitWorld {
    typealias Machine = StreamPublisher._GroupCommit<Int, Int>
    typealias Instant = ContinuousClock.Instant

    /// A broken invariant: what, and the events that led there.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A statement's failure, as the database or the pool reports it.
    struct StatementFailed: Error {}

    /// Where a simulated commit task is.
    enum Step: Equatable {
        case take, waitingForConnection, leased, sent(deadline: Instant), done
    }

    struct CommitTask {
        let stream: String
        let round: Int
        var step = Step.take
        var registered = false
        var cancelled = false
    }

    struct WatchTask {
        let generation: Int
        var wake: Instant
        var registered = false
        var cancelled = false
        var done = false
    }

    /// One publish as its caller sees it.
    struct Record {
        let stream: String
        let count: Int
        let bytes: Int
        let deadline: Instant
        var answers: [Machine.Outcome] = []
        /// Whether a statement carried it.
        var sent = false
        /// Whether that statement may still commit: sent, and the database has not answered yet.
        var inFlight = false
    }

    /// How often the interesting things happened, summed over a run: an exploration that never reaches them
    /// checks nothing.
    struct Coverage {
        var sequences = 0
        var events = 0
        var commits = 0
        var sentTimeouts = 0
        var unsentTimeouts = 0
        var withdrawn = 0
        var refused = 0
        var cancelledCommitTasks = 0
        var notSent = 0
        var oversized = 0
    }

    static let options: StreamPublisher.Options = {
        var options = StreamPublisher.Options()
        options.maximumBatchCount = 4
        options.maximumBatchBytes = 10
        return options
    }()
    static let streamNames = ["a", "b"]

    var machine = Machine(options: options)
    var random: SeededRandomNumberGenerator
    let start: Instant
    var now: Instant
    var records: [Int: Record] = [:]
    var commitTasks: [Int: CommitTask] = [:]
    var watchTasks: [Int: WatchTask] = [:]
    var nextTask = 0
    var heads: [String: Int64] = [:]
    /// Per stream, the last publish answered committed (ids are the arrival order) and its last sequence.
    var lastCommitted: [String: (id: Int, sequence: Int64)] = [:]
    /// The counts the machine must report, from what the world saw.
    var expected = StreamPublisher.Counts()
    var coverage = Coverage()
    /// The events so far, each with the time it happened at; described only when a check fails.
    var trace: [(at: Duration, event: Event)] = []

    init(seed: UInt64, start: Instant) {
        random = SeededRandomNumberGenerator(seed: seed)
        self.start = start
        now = start
    }

    /// Fails with `message` and the recent events when `condition` does not hold.
    func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        guard condition else {
            let events = trace.suffix(30).map { "at \($0.at): \($0.event)" }
            throw Failure(description: message() + "\nlast events:\n  " + events.joined(separator: "\n  "))
        }
    }

    /// Performs `actions` as the publisher does, checking each against the world.
    mutating func perform(_ actions: Machine.Actions) throws {
        for worker in actions.cancel {
            if let task = commitTasks[worker] {
                guard case .waitingForConnection(let waiting) = machine.streams[task.stream]?.phase else {
                    throw Failure(description: "cancelled commit task \(worker), which holds a connection")
                }
                try check(waiting.isEmpty, "cancelled commit task \(worker) while \(waiting.count) wait for it")
                commitTasks[worker]?.cancelled = true
                coverage.cancelledCommitTasks += 1
            } else if let watch = watchTasks[worker] {
                try check(watch.generation != machine.watch?.generation, "cancelled the current watch")
                watchTasks[worker]?.cancelled = true
            }  // else an ended task: cancelling it does nothing
        }
        if case let (stream, round)? = actions.startCommitting {
            let live = commitTasks.values.filter { $0.stream == stream && $0.step != .done }
            try check(live.isEmpty, "a second commit task for \(stream) while round \(live.map(\.round)) runs")
            commitTasks[nextTask] = CommitTask(stream: stream, round: round)
            nextTask += 1
        }
        if case let (generation, wake)? = actions.armWatch {
            try check(machine.watch?.generation == generation, "armed watch \(generation) is not the machine's")
            watchTasks[nextTask] = WatchTask(generation: generation, wake: wake)
            nextTask += 1
        }
        for answer in actions.answers {
            guard var record = records[answer.id] else { throw Failure(description: "answered unknown \(answer.id)") }
            try check(answer.waiter == answer.id, "publish \(answer.id)'s answer went to waiter \(answer.waiter)")
            try check(
                record.answers.isEmpty,
                "publish \(answer.id) answered twice: \(record.answers), \(answer.outcome)"
            )
            switch answer.outcome {
            case .timedOut(let mayHaveCommitted):
                // Ambiguous exactly while its statement may still commit (a refused statement did not).
                try check(
                    mayHaveCommitted == record.inFlight,
                    "publish \(answer.id) timed out \(answer.outcome), sent \(record.sent), in flight \(record.inFlight)"
                )
                expected.timedOut += 1
                if mayHaveCommitted { coverage.sentTimeouts += 1 } else { coverage.unsentTimeouts += 1 }
            case .cancelled:
                try check(!record.sent, "publish \(answer.id) answered cancelled after it was sent")
            case .committed(let sequences):
                try check(record.sent, "publish \(answer.id) committed without being sent")
                try check(sequences.count == record.count, "publish \(answer.id) got \(sequences.count) sequences")
                try check(zip(sequences, sequences.dropFirst()).allSatisfy { $0 + 1 == $1 }, "gaps in \(sequences)")
                if let last = lastCommitted[record.stream] {
                    try check(
                        last.id < answer.id && last.sequence < sequences[0],
                        "publish \(answer.id) committed as \(sequences) after \(last) in \(record.stream)"
                    )
                }
                lastCommitted[record.stream] = (answer.id, sequences.last!)
            case .failed:
                break
            }
            record.answers.append(answer.outcome)
            records[answer.id] = record
        }
    }

    /// Checks what must hold after every step.
    func checkInvariants() throws {
        // Every publish not answered is in exactly one place of the machine, and nothing answered is in it.
        var places: [Int: Int] = [:]
        var queued = 0
        var earliest: Instant?
        var liveRounds: [String: [Int]] = [:]
        for task in commitTasks.values where task.step != .done {
            liveRounds[task.stream, default: []].append(task.round)
        }
        for (stream, state) in machine.streams {
            var held = state.pending
            queued += state.pending.count
            switch state.phase {
            case .queued: break
            case .waitingForConnection(let waiting), .leased(let waiting), .sent(let waiting, _): held += waiting
            }
            for publish in held {
                places[publish.id, default: 0] += 1
                try check(records[publish.id]?.stream == stream, "publish \(publish.id) held in stream \(stream)")
                earliest = min(earliest ?? publish.deadline, publish.deadline)
            }
            let live = liveRounds[stream] ?? []
            try check(live == [state.round], "\(stream)'s round \(state.round) has commit tasks of rounds \(live)")
        }
        for (id, record) in records {
            let place = places[id] ?? 0
            try check(
                record.answers.isEmpty ? place == 1 : place == 0,
                "publish \(id) (answers \(record.answers)) is held \(place) times"
            )
        }
        try check(liveRounds.count == machine.streams.count, "commit tasks run for \(liveRounds)")
        var counts = expected
        counts.queued = queued
        try check(machine.counts == counts, "counts \(machine.counts), expected \(counts)")
        // Nothing waits without a watch that wakes by its deadline.
        if let earliest {
            guard let watch = machine.watch else { throw Failure(description: "publishes wait with no watch") }
            try check(watch.wake <= earliest, "the watch wakes after the earliest deadline")
            let task = watchTasks.values.first { $0.generation == watch.generation && !$0.done && !$0.cancelled }
            try check(task?.wake == watch.wake, "no live watch task wakes for generation \(watch.generation)")
        }
    }
}

extension CommitWorld.Coverage {
    /// Adds `other`'s figures to these.
    mutating func add(_ other: Self) {
        sequences += other.sequences
        events += other.events
        commits += other.commits
        sentTimeouts += other.sentTimeouts
        unsentTimeouts += other.unsentTimeouts
        withdrawn += other.withdrawn
        refused += other.refused
        cancelledCommitTasks += other.cancelledCommitTasks
        notSent += other.notSent
        oversized += other.oversized
    }
}
#endif
