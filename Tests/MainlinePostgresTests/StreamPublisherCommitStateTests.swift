#if Postgres
import CMainlineShims
import PostgresNIO
import Testing
import _MainlineTestSupport

@testable import MainlinePostgres

/// Group commit's state machine, without a database: seeded random sequences of every event the publisher feeds it
/// (publishes, cancelled callers, commit tasks taking, leasing, sending, answered and failing, deadlines, the
/// watch's tasks starting late), with the invariants checked after every step and once everything has ended.
@Suite("StreamPublisher: group commit's state machine")
struct StreamPublisherCommitStateTests {
    /// How many random sequences, and how many events each has before it drains.
    static let sequences = 10_000
    static let eventsPerSequence = 32

    /// (The explorations run on a thread of their own, `offPool`: seconds of computation, minutes under
    /// ThreadSanitizer, must not hold a thread of the concurrency pool that the database tests beside them need.)
    @Test(
        .enabled(
            if: mainline_is_thread_sanitized() == 0,
            "a pure state machine on one thread: nothing for ThreadSanitizer to check, and ten times slower under it"
        )
    )
    func everySeededSequenceOfEventsAnswersEachPublishOnceInStreamOrderWithinTheBounds() async throws {
        let start = ContinuousClock.now
        let (coverage, failure) = try await offPool { () -> (CommitWorld.Coverage, String?) in
            var coverage = CommitWorld.Coverage()
            for seed in 1...UInt64(Self.sequences) {
                var world = CommitWorld(seed: seed, start: start)
                do {
                    try world.run(events: Self.eventsPerSequence)
                } catch {
                    return (coverage, "seed \(seed): \(error)")
                }
                coverage.add(world.coverage)
            }
            return (coverage, nil)
        }
        if let failure {
            Issue.record("\(failure)")
            return
        }
        // Every kind of ending and every race the invariants are about happened, many times.
        #expect(coverage.sequences == Self.sequences)
        #expect(coverage.commits > 10_000)
        #expect(coverage.sentTimeouts > 100 && coverage.unsentTimeouts > 100)
        #expect(coverage.withdrawn > 100 && coverage.refused > 100 && coverage.notSent > 100)
        #expect(coverage.cancelledCommitTasks > 100 && coverage.oversized > 100)
    }

    @Test(
        .enabled(
            if: mainline_is_thread_sanitized() == 0,
            "a pure state machine on one thread: nothing for ThreadSanitizer to check, and ten times slower under it"
        )
    )
    func everySequenceOfFiveEventsFromTwoPublishesTheirCancellationsAndTheClockKeepsTheInvariants() async throws {
        let (explored, failure) = try await offPool { () -> (Int, String?) in
            var explored = 0
            do {
                try CommitWorld(seed: 0, start: .now).explore(depth: 5, explored: &explored)
            } catch {
                return (explored, "after \(explored) sequences: \(error)")
            }
            return (explored, nil)
        }
        if let failure { Issue.record("\(failure)") }
        // Every event the tasks, the watch and the callers can cause, after every prefix: the number of sequences
        // is fixed by the machine (it changes when what can happen next changes).
        #expect(explored == 6_458)
    }

    @Test func aPublishWhoseDeadlinePassesWhileItsBatchWaitsForAConnectionIsNeverSent() throws {
        var world = CommitWorld(seed: 0, start: .now)
        try world.happen(.publish(stream: "a", count: 1, bytes: 1, timeout: 10, cancelled: false))
        let commitTask = 0
        let watchTask = 1
        try world.happen(.register(commitTask))
        try world.happen(.register(watchTask))
        try world.happen(.take(commitTask))
        try world.happen(.advance(milliseconds: 10))
        try world.happen(.wake(watchTask))
        // Answered at its deadline, not sent, and the commit task (waiting for a connection) was cancelled.
        guard case .timedOut(mayHaveCommitted: false) = world.records[0]?.answers.first else {
            Issue.record("answered \(world.records[0]?.answers ?? [])")
            return
        }
        #expect(world.commitTasks[commitTask]?.cancelled == true)
        // Had the pool handed it a connection anyway, it sends nothing.
        try world.happen(.lease(commitTask))
        try world.happen(.send(commitTask))
        #expect(world.coverage.notSent == 1)
        #expect(world.machine.streams.isEmpty && world.machine.watch == nil)
    }

    @Test func publishesQueuedBehindABatchInFlightGoInTheNextRoundInArrivalOrderWithinTheBounds() throws {
        var world = CommitWorld(seed: 0, start: .now)
        try world.happen(.publish(stream: "a", count: 1, bytes: 1, timeout: 50, cancelled: false))
        try world.happen(.take(0))
        for count in [2, 2, 1] {
            try world.happen(.publish(stream: "a", count: count, bytes: 1, timeout: 50, cancelled: false))
        }
        #expect(world.machine.counts.queued == 3)
        try world.happen(.lease(0))
        try world.happen(.send(0))
        try world.happen(.commit(0))
        // The next round (task 2; the watch is task 1) takes the first two publishes: four events, the bound.
        try world.happen(.take(2))
        guard case .waitingForConnection(let batch) = world.machine.streams["a"]?.phase else {
            Issue.record("no batch: \(String(describing: world.machine.streams["a"]?.phase))")
            return
        }
        #expect(batch.map(\.id) == [1, 2])
        #expect(world.machine.counts.queued == 1)
        #expect(world.machine.counts.commits == 1 && world.machine.counts.largestCommit == 1)
    }

    @Test func aCommitTaskThatTakesItsBatchTwiceTrapsNamingTheStreamAndTheRound() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = StreamPublisher._GroupCommit<Int, Int>(options: StreamPublisher.Options())
            let publish = StreamPublisher._GroupCommit<Int, Int>.Publish(
                id: machine.makeID(),
                messages: [StreamPublisher.Message(ByteBuffer())],
                bytes: 0,
                deadline: .now + .seconds(10),
                timeout: .seconds(10),
                waiter: 0
            )
            _ = machine.enqueue(publish, to: "orders", cancelled: false)
            _ = machine.takeBatch(of: "orders", round: 0)
            _ = machine.takeBatch(of: "orders", round: 0)
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(standardError.contains("BUG DETECTED: round 0 of \"orders\" took a batch twice"))
    }
}

extension CommitWorld {
    /// `events` random events, then ``drain()``.
    mutating func run(events: Int) throws {
        coverage.sequences += 1
        for _ in 0..<events {
            let choices = enabled(.random)
            try happen(choices[Int.random(in: 0..<choices.count, using: &random)])
        }
        try drain()
    }

    /// Every sequence of `depth` events from the exhaustive set (``Mode/exhaustive``) that can happen from here, each
    /// drained to its end; counts them in `explored`.
    func explore(depth: Int, explored: inout Int) throws {
        guard depth > 0 else {
            var end = self
            try end.drain()
            explored += 1
            return
        }
        var world = self
        for event in world.enabled(.exhaustive) {
            var next = world
            try next.happen(event)
            try next.explore(depth: depth - 1, explored: &explored)
        }
    }

    /// Only the events that end what is under way, until nothing is left; then every publish must have been answered
    /// once and the machine must be empty.
    mutating func drain() throws {
        var steps = 0
        while case let choices = enabled(.draining), !choices.isEmpty {
            steps += 1
            try check(steps < 10_000, "still draining after 10,000 steps")
            try happen(choices[Int.random(in: 0..<choices.count, using: &random)])
        }
        for (id, record) in records {
            try check(record.answers.count == 1, "publish \(id) ended with answers \(record.answers)")
        }
        try check(machine.streams.isEmpty && machine.watch == nil, "the machine still holds \(machine.streams)")
    }

    /// Commit task `id` takes its batch: the oldest publishes queued, in arrival order, within the bounds.
    mutating func take(_ id: Int) throws {
        let task = commitTasks[id]!
        let queued = machine.streams[task.stream]?.pending.map(\.id) ?? []
        guard machine.takeBatch(of: task.stream, round: task.round) else {
            try check(queued.isEmpty, "took no batch while \(queued) were queued")
            finish(id)
            return
        }
        commitTasks[id]?.step = .waitingForConnection
        guard case .waitingForConnection(let batch) = machine.streams[task.stream]?.phase else {
            throw Failure(description: "took a batch without waiting for a connection")
        }
        try check(batch.map(\.id) == Array(queued.prefix(batch.count)), "batch \(batch.map(\.id)) of \(queued)")
        try checkBounds(batch.map(\.id))
    }

    /// Commit task `id` sends its statement: only publishes nobody answered yet, in arrival order, within bounds.
    mutating func send(_ id: Int) throws {
        let stream = commitTasks[id]!.stream
        guard case .leased(let waiting) = machine.streams[stream]?.phase else {
            throw Failure(description: "sent without a connection")
        }
        guard case .send(let messages, let deadline) = machine.sending(stream) else {
            try check(waiting.isEmpty, "sent nothing while \(waiting.map(\.id)) wait")
            coverage.notSent += 1
            // The task throws `CancellationError` instead of sending: nobody waits for it.
            let actions = machine.failed(stream, error: CancellationError(), pastDeadline: false)
            try end(id, with: actions)
            return
        }
        var ids: [Int] = []
        // Each message's key is its publish's id.
        for message in messages {
            let id = Int(message.key!)!
            if ids.last != id { ids.append(id) }
        }
        try check(ids == ids.sorted() && Set(ids).count == ids.count, "sent \(ids) out of arrival order")
        for sent in ids {
            try check(
                records[sent]?.answers.isEmpty == true,
                "sent publish \(sent), answered \(records[sent]!.answers)"
            )
            try check(records[sent]?.stream == stream, "sent publish \(sent) of another stream to \(stream)")
            records[sent]?.sent = true
            records[sent]?.inFlight = true
        }
        try check(messages.count == ids.reduce(0) { $0 + records[$1]!.count }, "sent a publish in part")
        try check(deadline == ids.map { records[$0]!.deadline }.min(), "the statement's deadline is not the earliest")
        try checkBounds(ids)
        commitTasks[id]?.step = .sent(deadline: deadline)
    }

    /// The database commits commit task `id`'s statement, giving its messages the stream's next sequences.
    mutating func commit(_ id: Int) throws {
        let stream = commitTasks[id]!.stream
        guard case .sent(_, let sent) = machine.streams[stream]?.phase else {
            throw Failure(description: "committed a statement never sent")
        }
        let count = sent.reduce(0) { $0 + $1.count }
        let head = heads[stream, default: 0]
        heads[stream] = head + Int64(count)
        expected.commits += 1
        expected.published += count
        expected.largestCommit = max(expected.largestCommit, count)
        coverage.commits += 1
        let sequences = Array((head + 1)...(head + Int64(count)))
        statementEnded(in: stream)
        let actions = machine.committed(stream, sequences: sequences, inserted: count)
        try end(id, with: actions)
    }
}
#endif
