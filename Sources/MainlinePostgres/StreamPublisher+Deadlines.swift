#if Postgres
/// Deadlines and cancellation: a publish is answered by its deadline at the latest, and one whose caller gave up is
/// never sent afterwards.
///
/// One watch task per publisher sleeps until the earliest deadline of its publishes and fails those whose deadline
/// passed: one still queued, or in a batch whose statement was not sent yet (waiting for a connection), fails with
/// `mayHaveCommitted: false` and is left out of the statement; one whose statement was sent fails with
/// `mayHaveCommitted: true` (the database itself refuses to commit the statement once the batch's earliest deadline
/// passed, by its clock, since it received it). The watch costs nothing per publish: it wakes at a deadline, which a
/// healthy publish never reaches, and then sleeps until the earliest one still waiting.
extension StreamPublisher {
    /// Makes sure the watch wakes by the earliest deadline: (re)starts it to wake at the earliest deadline now.
    func watchDeadlines() {
        queues.withLock { queues in
            let earliest = queues.streams.values.lazy.flatMap { queue in
                queue.pending.lazy.map(\.deadline) + (queue.inFlight?.waiting.values.map(\.deadline) ?? [])
            }.min()
            queues.watchTask?.cancel()
            queues.watchTask = nil
            queues.watch = nil
            guard let earliest else { return }
            queues.watchGeneration += 1
            let generation = queues.watchGeneration
            queues.watch = (generation, earliest)
            queues.watchTask = Task { [weak self] in
                var wake = earliest
                while true {
                    do {
                        try await Task.sleep(until: wake, clock: .continuous)
                    } catch {
                        return  // replaced by a watch that wakes sooner
                    }
                    guard let self, let next = self.expire(generation: generation) else { return }
                    wake = next
                }
            }
        }
    }

    /// Fails every publish whose deadline passed; returns when to wake next, or `nil` (the watch ends) when nothing
    /// waits or another watch (of a newer `generation`) replaced this one.
    private func expire(generation: Int) -> ContinuousClock.Instant? {
        let now = ContinuousClock.now
        var expired: [(publish: _Publish, stream: String, mayHaveCommitted: Bool)] = []
        var cancelling: [Task<Written, any Error>] = []
        let next: ContinuousClock.Instant? = queues.withLock { queues in
            guard queues.watch?.generation == generation else { return nil }
            var earliest: ContinuousClock.Instant?
            for stream in Array(queues.streams.keys) {
                guard var queue = queues.streams[stream] else { continue }
                queue.pending.removeAll { publish in
                    guard publish.deadline <= now else {
                        earliest = min(earliest ?? publish.deadline, publish.deadline)
                        return false
                    }
                    expired.append((publish, stream, false))
                    queues.counts.queued -= 1
                    return true
                }
                if var batch = queue.inFlight {
                    for (id, publish) in batch.waiting {
                        guard publish.deadline <= now else {
                            earliest = min(earliest ?? publish.deadline, publish.deadline)
                            continue
                        }
                        batch.waiting[id] = nil
                        expired.append((publish, stream, batch.sent))
                    }
                    // Nobody waits for a statement not sent yet: stop waiting for a connection for it (once it has one,
                    // it sees that nobody waits and sends nothing).
                    if batch.waiting.isEmpty, !batch.leased, let task = batch.task { cancelling.append(task) }
                    queue.inFlight = batch
                }
                queues.streams[stream] = queue
            }
            queues.counts.timedOut += expired.count
            if earliest == nil {
                queues.watch = nil
                queues.watchTask = nil
            } else {
                queues.watch = (generation, earliest!)
            }
            return earliest
        }
        for task in cancelling { task.cancel() }
        for (publish, stream, mayHaveCommitted) in expired {
            publish.continuation.resume(
                throwing: StreamError.publishTimedOut(
                    stream: stream,
                    timeout: publish.timeout,
                    mayHaveCommitted: mayHaveCommitted
                )
            )
        }
        return next
    }

    /// Takes publish `id` out of `stream`'s queue, if it is still waiting for its turn, and fails it with
    /// `CancellationError`; a publish already in a batch is left to finish.
    func withdraw(_ id: Int, from stream: String) {
        let withdrawn: _Publish? = queues.withLock { queues in
            guard let index = queues.streams[stream]?.pending.firstIndex(where: { $0.id == id }) else { return nil }
            queues.counts.queued -= 1
            return queues.streams[stream]?.pending.remove(at: index)
        }
        withdrawn?.continuation.resume(throwing: CancellationError())
    }
}
#endif
