#if Postgres
import PostgresNIO
import _MainlineTestSupport

@testable import MainlinePostgres

/// The events of the simulated world: what can happen next, and what happening does.
extension CommitWorld {
    enum Event {
        /// A caller publishes `count` messages of `bytes` bytes; `cancelled` if its task was cancelled already.
        case publish(stream: String, count: Int, bytes: Int, timeout: Int, cancelled: Bool)
        /// A caller is cancelled (its publish may be queued, in a batch, or answered already).
        case withdraw(Int)
        /// The starter of a task reports it.
        case register(Int)
        /// A commit task takes its batch, gets a connection, fails while waiting for one (or when cancelled), fails
        /// holding one (the tables), sends its statement, is answered, fails, or is refused past its deadline.
        case take(Int), lease(Int), failWaiting(Int), failLeased(Int), send(Int), commit(Int), fail(Int), refuse(Int)
        /// A watch wakes at its instant, or ends because it was cancelled.
        case wake(Int), endWatch(Int)
        /// Time passes.
        case advance(milliseconds: Int)
    }

    /// How the next events are chosen.
    enum Mode {
        /// Any event, with random publishes, cancellations and steps of time.
        case random
        /// Only what moves the world towards its end: no new publishes or cancellations, no failures, no time
        /// passing while something else can happen.
        case draining
        /// Any event, from a small set: two kinds of publish, the cancellation of each caller not answered yet, and
        /// 10 ms passing.
        case exhaustive
    }

    /// What can happen now, in `mode`.
    mutating func enabled(_ mode: Mode) -> [Event] {
        let draining = mode == .draining
        var events: [Event] = []
        if mode == .exhaustive {
            events.append(.publish(stream: "a", count: 2, bytes: 4, timeout: 10, cancelled: false))
            events.append(.publish(stream: "a", count: 3, bytes: 3, timeout: 25, cancelled: false))
            for id in records.keys.sorted() where records[id]!.answers.isEmpty { events.append(.withdraw(id)) }
            events.append(.advance(milliseconds: 10))
        } else if !draining {
            let count = Int.random(in: 1...5, using: &random)
            events.append(
                .publish(
                    stream: Self.streamNames.randomElement(using: &random)!,
                    count: count,
                    bytes: Int.random(in: 0...(3 * count), using: &random),
                    timeout: Int.random(in: 5...40, using: &random),
                    cancelled: Int.random(in: 0..<20, using: &random) == 0
                )
            )
            if !records.isEmpty { events.append(.withdraw(Int.random(in: 0..<records.count, using: &random))) }
            events.append(.advance(milliseconds: Int.random(in: 1...12, using: &random)))
        }
        // Ended tasks are kept only until their starter reports them.
        for id in commitTasks.keys.sorted() {
            let task = commitTasks[id]!
            if !task.registered { events.append(.register(id)) }
            switch task.step {
            case .take: events.append(.take(id))
            case .waitingForConnection:
                events.append(.lease(id))
                if task.cancelled || !draining { events.append(.failWaiting(id)) }
            case .leased:
                events.append(.send(id))
                if !draining { events.append(.failLeased(id)) }
            case .sent(let deadline):
                events.append(now <= deadline ? .commit(id) : .refuse(id))
                if !draining { events.append(.fail(id)) }
            case .done: break
            }
        }
        for id in watchTasks.keys.sorted() {
            let watch = watchTasks[id]!
            if !watch.registered { events.append(.register(id)) }
            if watch.done {
                continue
            } else if watch.cancelled {
                events.append(.endWatch(id))
            } else if now >= watch.wake {
                events.append(.wake(id))
            }
        }
        if draining, events.isEmpty, let wake = watchTasks.values.filter({ !$0.done }).map(\.wake).min() {
            events.append(.advance(milliseconds: max(1, Int((wake - now) / .milliseconds(1)) + 1)))
        }
        return events
    }

    /// Makes `event` happen, performs the actions the machine returns and checks the invariants.
    mutating func happen(_ event: Event) throws {
        trace.append((now - start, event))
        coverage.events += 1
        switch event {
        case .publish(let stream, let count, let bytes, let timeout, let cancelled):
            let id = machine.makeID()
            let deadline = now + .milliseconds(timeout)
            records[id] = Record(stream: stream, count: count, bytes: bytes, deadline: deadline)
            if count > Self.options.maximumBatchCount || bytes > Self.options.maximumBatchBytes {
                coverage.oversized += 1
            }
            let messages = (0..<count).map { _ in StreamPublisher.Message(ByteBuffer(), key: "\(id)") }
            let publish = Machine.Publish(
                id: id,
                messages: messages,
                bytes: bytes,
                deadline: deadline,
                timeout: .milliseconds(timeout),
                waiter: id
            )
            let actions = machine.enqueue(publish, to: stream, cancelled: cancelled)
            if cancelled { try check(actions.answers.map(\.id) == [id], "a cancelled caller was not answered alone") }
            try perform(actions)
        case .withdraw(let id):
            let wasQueued = machine.streams.values.contains { $0.pending.contains { $0.id == id } }
            let actions = machine.withdraw(id, from: records[id]?.stream ?? "a")
            try check(
                actions.answers.map(\.id) == (wasQueued ? [id] : []),
                "withdrawing \(id) answered \(actions.answers.map(\.id))"
            )
            if wasQueued { coverage.withdrawn += 1 }
            try perform(actions)
        case .register(let id):
            if let task = commitTasks[id] {
                commitTasks[id]?.registered = true
                if task.step == .done { commitTasks[id] = nil }
                try perform(machine.commitTaskStarted(id, for: task.stream, round: task.round))
            } else if let watch = watchTasks[id] {
                watchTasks[id]?.registered = true
                if watch.done { watchTasks[id] = nil }
                try perform(machine.watchStarted(id, generation: watch.generation))
            }
        case .take(let id):
            try take(id)
        case .lease(let id):
            machine.leased(commitTasks[id]!.stream)
            commitTasks[id]?.step = .leased
        case .failWaiting(let id):
            let error: any Error = commitTasks[id]!.cancelled ? CancellationError() : StatementFailed()
            let actions = machine.failed(commitTasks[id]!.stream, error: error, pastDeadline: false)
            try end(id, with: actions)
        case .failLeased(let id):
            let actions = machine.failed(commitTasks[id]!.stream, error: StatementFailed(), pastDeadline: false)
            try end(id, with: actions)
        case .send(let id):
            try send(id)
        case .commit(let id):
            try commit(id)
        case .fail(let id), .refuse(let id):
            expected.failedCommits += 1
            let pastDeadline = if case .refuse = event { true } else { false }
            if pastDeadline { coverage.refused += 1 }
            let stream = commitTasks[id]!.stream
            statementEnded(in: stream)
            let actions = machine.failed(stream, error: StatementFailed(), pastDeadline: pastDeadline)
            try end(id, with: actions)
        case .wake(let id):
            let (actions, next) = machine.deadlinesPassed(generation: watchTasks[id]!.generation, now: now)
            for answer in actions.answers {
                try check(records[answer.id]!.deadline <= now, "publish \(answer.id) timed out before its deadline")
            }
            if let next { watchTasks[id]?.wake = next } else { endWatch(id) }
            try perform(actions)
        case .endWatch(let id):
            endWatch(id)
        case .advance(let milliseconds):
            now += .milliseconds(milliseconds)
        }
        try checkInvariants()
    }

    /// The database answered `stream`'s statement: none of it may commit any more (or it committed, now).
    mutating func statementEnded(in stream: String) {
        guard case .sent(_, let sent) = machine.streams[stream]?.phase else { return }
        for (id, _) in sent { records[id]?.inFlight = false }
    }

    /// Commit task `id` ended: the machine's `actions` are performed.
    mutating func end(_ id: Int, with actions: Machine.Actions) throws {
        finish(id)
        try perform(actions)
    }

    /// Commit task `id` ended: forgotten, once its starter has reported it.
    mutating func finish(_ id: Int) {
        if commitTasks[id]?.registered == true { commitTasks[id] = nil } else { commitTasks[id]?.step = .done }
    }

    /// Watch task `id` ended: forgotten, once its starter has reported it.
    mutating func endWatch(_ id: Int) {
        if watchTasks[id]?.registered == true { watchTasks[id] = nil } else { watchTasks[id]?.done = true }
    }

    /// A batch of `ids` is within the bounds, unless it is one publish alone.
    func checkBounds(_ ids: [Int]) throws {
        guard ids.count > 1 else { return }
        let count = ids.reduce(0) { $0 + records[$1]!.count }
        let bytes = ids.reduce(0) { $0 + records[$1]!.bytes }
        try check(
            count <= Self.options.maximumBatchCount && bytes <= Self.options.maximumBatchBytes,
            "a batch of \(ids) carries \(count) events and \(bytes) bytes"
        )
    }
}
#endif
