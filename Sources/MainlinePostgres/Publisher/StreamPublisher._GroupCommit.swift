#if Postgres
extension StreamPublisher {
    /// Group commit as a state machine: every stream's publishes from queued to a batch leased, sent and answered,
    /// the deadline watch, and the counts.
    ///
    /// `_GroupCommit` is **not** thread-safe: the publisher keeps it under one lock, feeds it events (a publish
    /// enqueued, a caller cancelled, a commit task taking its batch, a connection leased, a statement sent, answered or
    /// failed, a deadline passed) and performs the ``Actions`` each returns outside that lock. It does no I/O and reads
    /// no clock, so the tests step it through every order of events without a database.
    ///
    /// Guarantees:
    /// - every publish is answered exactly once: committed, timed out, cancelled or failed;
    /// - one round per stream at a time (one commit task, so at most one batch in flight per stream and process);
    /// - a batch is the oldest publishes queued, in arrival order, within ``Options``' bounds (a publish larger than the
    ///   bounds alone); the stream's order is the arrival order;
    /// - a publish answered before its statement was sent (cancelled, or timed out with `mayHaveCommitted: false`) is
    ///   never sent, and a statement nobody waits for is not sent at all;
    /// - while anything waits, the deadline watch is armed no later than the earliest deadline.
    ///
    /// `Waiter` is who learns a publish's outcome (a continuation); `Worker` a task that can be cancelled (a commit
    /// task, the deadline watch). The tests use plain numbers for both.
    struct _GroupCommit<Waiter, Worker> {
        /// One call waiting for its commit: one event, or a `publish(contentsOf:)` batch (never split).
        struct Publish {
            let id: Int
            let messages: [Message]
            /// The payloads' bytes, counted against ``Options/maximumBatchBytes``.
            let bytes: Int
            let deadline: ContinuousClock.Instant
            let timeout: Duration
            let waiter: Waiter
        }

        /// How a publish ended.
        enum Outcome {
            /// Committed with these sequences, one per message.
            case committed([Int64])
            /// Its deadline passed; `mayHaveCommitted` when its statement had been sent.
            case timedOut(mayHaveCommitted: Bool)
            /// Its caller was cancelled while it waited for its turn: never sent.
            case cancelled
            /// Its statement failed (or never got a connection); nothing of it was written.
            case failed(any Error)
        }

        /// A publish to answer: resume `waiter` with `outcome`.
        struct Answer {
            let id: Int
            let stream: String
            let timeout: Duration
            let waiter: Waiter
            let outcome: Outcome
        }

        /// What the caller does outside the lock, in this order: cancel the workers, start the commit task, (re)arm
        /// the watch, resume the waiters.
        struct Actions {
            /// Tasks to cancel: a commit task still waiting for a connection for a batch nobody waits for any more,
            /// or a watch another replaced.
            var cancel: [Worker] = []
            /// Start the stream's commit task for `round`; it sends ``takeBatch(of:round:)`` when it runs.
            var startCommitting: (stream: String, round: Int)?
            /// Start a watch that wakes at `wake` and then sends ``deadlinesPassed(generation:now:)``.
            var armWatch: (generation: Int, wake: ContinuousClock.Instant)?
            /// Waiters to resume.
            var answers: [Answer] = []
        }

        /// What the commit task sends, once it holds a connection.
        enum Sending {
            /// Send these messages in one statement; the database refuses it past `deadline` (the earliest of its
            /// publishes').
            case send([Message], deadline: ContinuousClock.Instant)
            /// Nobody waits for the batch any more: send nothing.
            case nothing
        }

        /// Where one stream's round is; a stream without a round is idle (absent from `streams`).
        enum Phase {
            /// The commit task was started; it takes its batch when it runs.
            case queued
            /// It took `waiting` as its batch and waits for a connection: cancelled when nobody waits any more.
            case waitingForConnection(waiting: [Publish])
            /// The pool handed it a connection; the task is never cancelled from here on (a statement cancelled
            /// half-way can leave the connection in a transaction).
            case leased(waiting: [Publish])
            /// The statement carrying `sent` (each publish's id and message count, in order) is on its way; `waiting`
            /// are those of them not answered yet (a deadline takes one out, answered `mayHaveCommitted: true`).
            case sent(waiting: [Publish], sent: [(id: Int, count: Int)])
        }

        /// One stream with a round: its commit task, what it carries, and what waits for the next round.
        struct Stream {
            /// Which round (unique in the publisher): tells a late report of an ended round from the current one.
            let round: Int
            var phase: Phase
            /// The round's commit task, once its starter reported it.
            var worker: Worker?
            /// Publishes waiting for their turn, in arrival order (which becomes the stream's order).
            var pending: [Publish] = []
        }

        /// The deadline watch: one task per publisher, asleep until `wake`, no later than every waiting deadline.
        struct Watch {
            let generation: Int
            var wake: ContinuousClock.Instant
            var worker: Worker?
        }

        // The stored state is internal so that the events in `+Answers` can change it; only the events do (the
        // tests read it, to check the invariants).
        let options: Options
        /// The streams with a round; an idle stream is absent.
        var streams: [String: Stream] = [:]
        /// The deadline watch, while anything waits.
        var watch: Watch?
        /// What the publisher did so far, and what waits now (``StreamPublisher/counts``).
        var counts = Counts()
        private var nextID = 0
        private var nextRound = 0
        private var nextGeneration = 0

        /// An empty machine: nothing queued, no watch.
        init(options: Options) { self.options = options }

        /// A new round's number, unique in the publisher.
        mutating func startRound() -> Int {
            defer { nextRound += 1 }
            return nextRound
        }

        /// A new publish's id, unique in the publisher.
        mutating func makeID() -> Int {
            defer { nextID += 1 }
            return nextID
        }

        /// A publish arrived. A caller `cancelled` already is answered `.cancelled` at once; otherwise it queues, the
        /// stream's commit task starts if the stream was idle, and the watch is re-armed if this deadline comes
        /// first.
        mutating func enqueue(_ publish: Publish, to stream: String, cancelled: Bool) -> Actions {
            var actions = Actions()
            if cancelled {
                actions.answers.append(answer(publish, in: stream, .cancelled))
                return actions
            }
            if streams[stream] == nil {
                let round = startRound()
                streams[stream] = Stream(round: round, phase: .queued)
                actions.startCommitting = (stream, round)
            }
            streams[stream]?.pending.append(publish)
            counts.queued += 1
            if watch.map({ publish.deadline < $0.wake }) ?? true {
                if let old = watch?.worker { actions.cancel.append(old) }
                nextGeneration += 1
                watch = Watch(generation: nextGeneration, wake: publish.deadline)
                actions.armWatch = (nextGeneration, publish.deadline)
            }
            return actions
        }

        /// Publish `id`'s caller was cancelled: a publish still waiting for its turn leaves the queue, answered
        /// `.cancelled`; one already in a batch (or answered) is left alone.
        mutating func withdraw(_ id: Int, from stream: String) -> Actions {
            var actions = Actions()
            guard let index = streams[stream]?.pending.firstIndex(where: { $0.id == id }),
                let publish = streams[stream]?.pending.remove(at: index)
            else { return actions }
            counts.queued -= 1
            actions.answers.append(answer(publish, in: stream, .cancelled))
            return actions
        }

        /// The starter of `stream`'s commit task for `round` reports it. Cancelled at once if the round's batch lost
        /// every publish while it waited for a connection; ignored once the round ended.
        mutating func commitTaskStarted(_ worker: Worker, for stream: String, round: Int) -> Actions {
            var actions = Actions()
            guard streams[stream]?.round == round else { return actions }
            streams[stream]?.worker = worker
            if case .waitingForConnection(let waiting) = streams[stream]?.phase, waiting.isEmpty {
                actions.cancel.append(worker)
            }
            return actions
        }

        /// `stream`'s commit task for `round` runs: it takes the oldest publishes queued, within the bounds, as its
        /// batch. Returns `false` when nothing is queued (every publish left meanwhile): the stream is idle again
        /// and the task ends.
        mutating func takeBatch(of stream: String, round: Int) -> Bool {
            guard var state = streams[stream], state.round == round, case .queued = state.phase else {
                preconditionFailure("BUG DETECTED: round \(round) of \(stream.debugDescription) took a batch twice")
            }
            let batch = Self.nextBatch(from: &state.pending, options: options)
            if batch.isEmpty {
                streams[stream] = nil
                return false
            }
            counts.queued -= batch.count
            state.phase = .waitingForConnection(waiting: batch)
            streams[stream] = state
            return true
        }

        /// `stream`'s commit task holds a connection: from here on it is never cancelled.
        mutating func leased(_ stream: String) {
            guard case .waitingForConnection(let waiting) = streams[stream]?.phase else {
                preconditionFailure("BUG DETECTED: \(stream.debugDescription) leased a connection for no batch")
            }
            streams[stream]?.phase = .leased(waiting: waiting)
        }

        /// `stream`'s commit task is about to send its statement: the last moment to leave out what a deadline took.
        mutating func sending(_ stream: String) -> Sending {
            guard case .leased(let waiting) = streams[stream]?.phase else {
                preconditionFailure("BUG DETECTED: \(stream.debugDescription) sent a statement without a connection")
            }
            guard let deadline = waiting.map(\.deadline).min() else { return .nothing }
            streams[stream]?.phase = .sent(
                waiting: waiting,
                sent: waiting.map { (id: $0.id, count: $0.messages.count) }
            )
            return .send(waiting.flatMap(\.messages), deadline: deadline)
        }

        /// The answer to `publish`, in `stream`.
        func answer(_ publish: Publish, in stream: String, _ outcome: Outcome) -> Answer {
            Answer(id: publish.id, stream: stream, timeout: publish.timeout, waiter: publish.waiter, outcome: outcome)
        }

        /// Takes from `pending` the next batch: the first publish, and those after it while the batch stays within
        /// `options`' bounds.
        static func nextBatch(from pending: inout [Publish], options: Options) -> [Publish] {
            guard let first = pending.first else { return [] }
            var count = first.messages.count
            var bytes = first.bytes
            var end = 1
            while end < pending.count {
                let next = pending[end]
                if count + next.messages.count > options.maximumBatchCount
                    || bytes + next.bytes > options.maximumBatchBytes
                {
                    break
                }
                count += next.messages.count
                bytes += next.bytes
                end += 1
            }
            defer { pending.removeFirst(end) }
            return Array(pending[..<end])
        }
    }
}
#endif
