#if Postgres
import CoreMetrics
import PostgresNIO

/// Group commit: the publishes of one stream that wait at the same time share one statement and one transaction.
///
/// Each stream has a queue (`_StreamQueue`). The publish that finds its stream without a queue starts the stream's
/// commit task, which commits what is queued (a batch within `Options`' bounds) in one statement, answers every publish
/// of it, and goes on with what queued meanwhile, until the queue is empty. So one commit is in flight per stream and
/// process, a commit carries what arrived while the previous one ran, and the stream's order is the commit order.
///
/// The commit task is not the caller's: a publish whose task is cancelled while it waits for its turn leaves the
/// queue (`CancellationError`) and cannot fail the others.
extension StreamPublisher {
    /// Queues `messages` (validated) as one publish to `stream` and waits for its commit.
    ///
    /// - Returns: The sequence of each message, in order.
    /// - Throws: ``StreamError/publishTimedOut(stream:timeout:mayHaveCommitted:)``, `CancellationError` (while it
    ///   waited for its turn: not published), or what the commit threw (nothing of it was written).
    func enqueue(_ messages: [Message], to stream: String, timeout: Duration?) async throws -> [Int64] {
        let timeout = timeout ?? options.publishTimeout
        let deadline = ContinuousClock.now + timeout
        let bytes = messages.reduce(0) { $0 + $1.payload.readableBytes }
        let id = queues.withLock { queues in
            defer { queues.nextID += 1 }
            return queues.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let publish = _Publish(
                    id: id,
                    messages: messages,
                    bytes: bytes,
                    deadline: deadline,
                    timeout: timeout,
                    continuation: continuation
                )
                // Queued only if not cancelled yet, under the lock: a cancellation after this finds it in the queue.
                let (queued, startsCommitting, watch) = queues.withLock { queues in
                    if Task.isCancelled { return (false, false, false) }
                    let startsCommitting = queues.streams[stream] == nil
                    queues.streams[stream, default: _StreamQueue()].pending.append(publish)
                    queues.counts.queued += 1
                    return (true, startsCommitting, queues.watch.map { deadline < $0.wake } ?? true)
                }
                guard queued else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                if watch { watchDeadlines() }
                if startsCommitting { Task { await self.commitQueued(stream) } }
            }
        } onCancel: {
            withdraw(id, from: stream)
        }
    }

    /// The stream's commit task: commits batch after batch until the queue is empty, then removes it.
    private func commitQueued(_ stream: String) async {
        while true {
            let batch: [_Publish] = queues.withLock { queues in
                guard var queue = queues.streams[stream] else { return [] }
                let batch = Self.nextBatch(from: &queue.pending, options: options)
                if batch.isEmpty {
                    queues.streams[stream] = nil
                } else {
                    queues.counts.queued -= batch.count
                    queue.inFlight = _Batch(waiting: Dictionary(uniqueKeysWithValues: batch.map { ($0.id, $0) }))
                    queues.streams[stream] = queue
                }
                return batch
            }
            if batch.isEmpty { return }
            await commit(batch, to: stream)
        }
    }

    /// Commits `batch` (the stream's batch in flight) in one statement and answers every publish of it still waiting.
    private func commit(_ batch: [_Publish], to stream: String) async {
        let task = Task { () async throws -> Written in
            try await self.withSchema(leased: {
                self.queues.withLock { $0.streams[stream]?.inFlight?.leased = true }
            }) { connection in
                // The last moment to leave out what a deadline took: from here on the statement is on its way.
                let sending: [_Publish]? = self.queues.withLock { queues in
                    guard let waiting = queues.streams[stream]?.inFlight?.waiting, !waiting.isEmpty else { return nil }
                    queues.streams[stream]?.inFlight?.sent = true
                    return waiting.count == batch.count ? batch : batch.filter { waiting[$0.id] != nil }
                }
                guard let sending, let deadline = sending.map(\.deadline).min() else { throw CancellationError() }
                let messages = sending.flatMap(\.messages)
                var conflicts = 0
                while true {
                    do {
                        var written = try await Self.write(
                            messages,
                            to: stream,
                            on: connection,
                            schema: self.schema,
                            remaining: deadline - ContinuousClock.now,
                            logger: self.logger
                        )
                        written.publishes = sending.map { ($0.id, $0.messages.count) }
                        return written
                    } catch  where Self.isIdempotencyConflict(error, schema: self.schema) && conflicts < 3 {
                        // Another process committed one of these idempotency keys while this statement waited for
                        // the head; its snapshot missed it. Again: the new statement sees it.
                        conflicts += 1
                    }
                }
            }
        }
        let cancelNow = queues.withLock { queues in
            queues.streams[stream]?.inFlight?.task = task
            guard let batch = queues.streams[stream]?.inFlight else { return false }
            return batch.waiting.isEmpty && !batch.leased
        }
        if cancelNow { task.cancel() }
        let result = await task.result
        let waiting: [Int: _Publish] = queues.withLock { queues in
            let waiting = queues.streams[stream]?.inFlight?.waiting ?? [:]
            let sent = queues.streams[stream]?.inFlight?.sent ?? false
            queues.streams[stream]?.inFlight = nil
            switch result {
            case .success(let written):
                queues.counts.commits += 1
                queues.counts.published += written.inserted
                queues.counts.largestCommit = max(queues.counts.largestCommit, written.sequences.count)
            case .failure(let error):
                // A statement that failed (whether or not anyone still waited for it); not one never sent.
                if sent { queues.counts.failedCommits += 1 }
                if Self.isDeadlineError(error) { queues.counts.timedOut += waiting.count }
            }
            return waiting
        }
        switch result {
        case .success(let written):
            if written.inserted > 0 {
                Counter(label: "mainline_stream_published", dimensions: [("stream", stream)], factory: metricsFactory)
                    .increment(by: written.inserted)
            }
            var offset = 0
            for (id, count) in written.publishes {
                waiting[id]?.continuation.resume(returning: Array(written.sequences[offset..<offset + count]))
                offset += count
            }
        case .failure(let error):
            for publish in waiting.values {
                if Self.isDeadlineError(error) {
                    publish.continuation.resume(
                        throwing: StreamError.publishTimedOut(
                            stream: stream,
                            timeout: publish.timeout,
                            mayHaveCommitted: false
                        )
                    )
                } else {
                    publish.continuation.resume(throwing: error)
                }
            }
        }
    }
}
#endif
