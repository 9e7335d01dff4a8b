#if Postgres
import CoreMetrics
import PostgresNIO

/// Group commit: the publishes of one stream that wait at the same time share one statement and one transaction.
///
/// The rules are the state machine's (`_GroupCommit`); this is its driver. Every event goes to the machine under
/// `groupCommit`'s lock, and the actions it returns are performed outside it: a stream's publishes queue, the publish
/// that finds its stream idle starts the stream's commit task, which takes what is queued (a batch within `Options`'
/// bounds), commits it in one statement and answers every publish of it; what queued meanwhile goes in the next
/// round's commit task. So one commit is in flight per stream and process, a commit carries what arrived while the
/// previous one ran, and the stream's order is the commit order.
///
/// The commit task is not the caller's: a publish whose task is cancelled while it waits for its turn leaves the
/// queue (`CancellationError`) and cannot fail the others.
extension StreamPublisher {
    /// The machine the publisher drives: continuations wait, tasks work.
    typealias _Commits = _GroupCommit<CheckedContinuation<[Int64], any Error>, Task<Void, Never>>

    /// Queues `messages` (validated) as one publish to `stream` and waits for its commit. Thread-safe.
    ///
    /// - Returns: The sequence of each message, in order.
    /// - Throws: ``StreamError/publishTimedOut(stream:timeout:mayHaveCommitted:)``, `CancellationError` (while it
    ///   waited for its turn: not published), or what the commit threw (nothing of it was written).
    func enqueue(_ messages: [Message], to stream: String, timeout: Duration?) async throws -> [Int64] {
        let timeout = timeout ?? options.publishTimeout
        let deadline = ContinuousClock.now + timeout
        let bytes = messages.reduce(0) { $0 + $1.payload.readableBytes }
        let id = groupCommit.withLock { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let publish = _Commits.Publish(
                    id: id,
                    messages: messages,
                    bytes: bytes,
                    deadline: deadline,
                    timeout: timeout,
                    waiter: continuation
                )
                // Whether the caller is cancelled is read under the lock: a cancellation after this finds it queued.
                perform(groupCommit.withLock { $0.enqueue(publish, to: stream, cancelled: Task.isCancelled) })
            }
        } onCancel: {
            perform(groupCommit.withLock { $0.withdraw(id, from: stream) })
        }
    }

    /// Performs what the machine returned, outside its lock. Thread-safe.
    func perform(_ actions: _Commits.Actions) {
        for worker in actions.cancel { worker.cancel() }
        if case let (stream, round)? = actions.startCommitting {
            let task = Task { await self.commitRound(round, of: stream) }
            perform(groupCommit.withLock { $0.commitTaskStarted(task, for: stream, round: round) })
        }
        if case let (generation, wake)? = actions.armWatch { watch(generation: generation, wake: wake) }
        for answer in actions.answers {
            switch answer.outcome {
            case .committed(let sequences):
                answer.waiter.resume(returning: sequences)
            case .timedOut(let mayHaveCommitted):
                answer.waiter.resume(
                    throwing: StreamError.publishTimedOut(
                        stream: answer.stream,
                        timeout: answer.timeout,
                        mayHaveCommitted: mayHaveCommitted
                    )
                )
            case .cancelled:
                answer.waiter.resume(throwing: CancellationError())
            case .failed(let error):
                answer.waiter.resume(throwing: error)
            }
        }
    }

    /// `stream`'s commit task for `round`: takes its batch, commits it in one statement, and reports the answer.
    private func commitRound(_ round: Int, of stream: String) async {
        guard groupCommit.withLock({ $0.takeBatch(of: stream, round: round) }) else { return }
        let actions: _Commits.Actions
        do {
            let written = try await withSchema(leased: { self.groupCommit.withLock { $0.leased(stream) } }) {
                connection in
                // The last moment to leave out what a deadline took: from here on the statement is on its way.
                let sending = self.groupCommit.withLock { $0.sending(stream) }
                guard case .send(let messages, let deadline) = sending else { throw CancellationError() }
                var conflicts = 0
                while true {
                    do {
                        return try await Self.write(
                            messages,
                            to: stream,
                            on: connection,
                            schema: self.schema,
                            remaining: deadline - ContinuousClock.now,
                            logger: self.logger
                        )
                    } catch  where Self.isIdempotencyConflict(error, schema: self.schema) && conflicts < 3 {
                        // Another process committed one of these idempotency keys while this statement waited for
                        // the head; its snapshot missed it. Again: the new statement sees it.
                        conflicts += 1
                    }
                }
            }
            if written.inserted > 0 {
                Counter(label: "mainline_stream_published", dimensions: [("stream", stream)], factory: metricsFactory)
                    .increment(by: written.inserted)
            }
            actions = groupCommit.withLock {
                $0.committed(stream, sequences: written.sequences, inserted: written.inserted)
            }
        } catch {
            let pastDeadline = Self.isDeadlineError(error)
            actions = groupCommit.withLock { $0.failed(stream, error: error, pastDeadline: pastDeadline) }
        }
        perform(actions)
    }
}
#endif
