#if Postgres
/// How a round ends (its statement answered or failed) and how deadlines end publishes.
extension StreamPublisher._GroupCommit {
    /// `stream`'s statement committed: `sequences` for its messages in order, `inserted` of them new (the others
    /// known by their idempotency keys). Answers every publish of it still waiting, and starts the next round if
    /// publishes queued meanwhile.
    mutating func committed(_ stream: String, sequences: [Int64], inserted: Int) -> Actions {
        guard case .sent(let waiting, let sent) = streams[stream]?.phase else {
            preconditionFailure("BUG DETECTED: \(stream.debugDescription) committed a statement it never sent")
        }
        guard sequences.count == sent.reduce(0, { $0 + $1.count }) else {
            preconditionFailure(
                "BUG DETECTED: a statement of \(sent.count) publishes to \(stream.debugDescription) returned "
                    + "\(sequences.count) sequences"
            )
        }
        counts.commits += 1
        counts.published += inserted
        counts.largestCommit = max(counts.largestCommit, sequences.count)
        var actions = Actions()
        let byID = Dictionary(uniqueKeysWithValues: waiting.map { ($0.id, $0) })
        var offset = sequences.startIndex
        for (id, count) in sent {
            defer { offset += count }
            guard let publish = byID[id] else { continue }  // its deadline answered it
            actions.answers.append(answer(publish, in: stream, .committed(Array(sequences[offset..<offset + count]))))
        }
        endRound(of: stream, &actions)
        return actions
    }

    /// `stream`'s commit task failed with `error` after it took its batch: no connection (or cancelled while
    /// waiting for one), the tables could not be created, nobody waited (nothing sent), or the statement failed.
    /// `pastDeadline`: the database refused the statement because the batch's earliest deadline passed. Fails every
    /// publish still waiting (timed out, `mayHaveCommitted: false`, when `pastDeadline`), and starts the next round
    /// if publishes queued meanwhile.
    mutating func failed(_ stream: String, error: any Error, pastDeadline: Bool) -> Actions {
        let waiting: [Publish]
        switch streams[stream]?.phase {
        case .waitingForConnection(let batch), .leased(let batch):
            waiting = batch
        case .sent(let batch, _):
            waiting = batch
            counts.failedCommits += 1
        case .queued, nil:
            preconditionFailure("BUG DETECTED: \(stream.debugDescription) failed a batch it never took")
        }
        var actions = Actions()
        if pastDeadline { counts.timedOut += waiting.count }
        for publish in waiting {
            let outcome: Outcome = pastDeadline ? .timedOut(mayHaveCommitted: false) : .failed(error)
            actions.answers.append(answer(publish, in: stream, outcome))
        }
        endRound(of: stream, &actions)
        return actions
    }

    /// Ends `stream`'s round: idle if nothing queued, otherwise a new round whose commit task the caller starts.
    private mutating func endRound(of stream: String, _ actions: inout Actions) {
        guard let pending = streams[stream]?.pending, !pending.isEmpty else {
            streams[stream] = nil
            return
        }
        let round = startRound()
        streams[stream] = Stream(round: round, phase: .queued, pending: pending)
        actions.startCommitting = (stream, round)
    }

    /// The starter of the watch of `generation` reports it; cancelled at once if another watch replaced it.
    mutating func watchStarted(_ worker: Worker, generation: Int) -> Actions {
        var actions = Actions()
        if watch?.generation == generation {
            watch?.worker = worker
        } else {
            actions.cancel.append(worker)
        }
        return actions
    }

    /// The watch of `generation` woke at `now`: fails every publish whose deadline passed — one queued or in a batch
    /// not sent yet with `mayHaveCommitted: false` (left out of the statement), one sent with `true` — and cancels a
    /// commit task still waiting for a connection for a batch nobody waits for now.
    ///
    /// - Returns: The actions, and when the watch wakes next; `nil` (the watch ends) when nothing waits or another
    ///   watch replaced this one.
    mutating func deadlinesPassed(
        generation: Int,
        now: ContinuousClock.Instant
    ) -> (actions: Actions, next: ContinuousClock.Instant?) {
        var actions = Actions()
        guard watch?.generation == generation else { return (actions, nil) }
        var earliest: ContinuousClock.Instant?
        var expiredQueued = 0
        // Answers the publishes of `list` whose deadline passed (timed out, `mayHaveCommitted: sent`), returns the
        // others, and keeps their earliest deadline.
        func expire(_ list: [Publish], sent: Bool, in stream: String) -> [Publish] {
            var kept: [Publish] = []
            for publish in list {
                if publish.deadline <= now {
                    actions.answers.append(answer(publish, in: stream, .timedOut(mayHaveCommitted: sent)))
                } else {
                    earliest = min(earliest ?? publish.deadline, publish.deadline)
                    kept.append(publish)
                }
            }
            return kept
        }
        for (stream, original) in streams {
            var state = original
            let pending = expire(state.pending, sent: false, in: stream)
            expiredQueued += state.pending.count - pending.count
            state.pending = pending
            switch state.phase {
            case .queued:
                break
            case .waitingForConnection(let batch):
                let waiting = expire(batch, sent: false, in: stream)
                state.phase = .waitingForConnection(waiting: waiting)
                // Nobody waits for a statement not sent yet: stop waiting for a connection for it (once it has one,
                // it sees that nobody waits and sends nothing).
                if waiting.isEmpty, !batch.isEmpty, let worker = state.worker { actions.cancel.append(worker) }
            case .leased(let waiting):
                state.phase = .leased(waiting: expire(waiting, sent: false, in: stream))
            case .sent(let waiting, let sent):
                state.phase = .sent(waiting: expire(waiting, sent: true, in: stream), sent: sent)
            }
            streams[stream] = state
        }
        counts.timedOut += actions.answers.count
        counts.queued -= expiredQueued
        watch = earliest.map { Watch(generation: generation, wake: $0, worker: watch?.worker) }
        return (actions, earliest)
    }
}
#endif
