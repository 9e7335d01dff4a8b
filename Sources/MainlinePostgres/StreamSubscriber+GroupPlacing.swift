#if Postgres
import CoreMetrics
import Foundation
import Logging
import PostgresNIO

extension StreamSubscriber {
    /// Offers `member`'s backlog to its mailbox, in order, until it is empty, the mailbox refuses (`.refused`: offer
    /// again later), or a delivery waits for room (a task places it and wakes the reader). Runs on the reader task
    /// only.
    func placeBacklog(of member: StreamGroupSubscription) -> CatchUpResult {
        while let next = member.state.withLock({ state in
            state.waiting == nil && !state.cancelled ? state.backlog.first : nil
        }) {
            let placement: StreamSubscription._Placement
            switch next {
            case .event(let event):
                // Recorded as placed before the mailbox has it: the consumer may take it (and the take observer look
                // for it) before `placeEvent` returns.
                if member.tracksTakes {
                    member.state.withLock { state in
                        state.placed[event.sequence] = state.nextPlacement
                        state.nextPlacement += 1
                    }
                }
                placement = member.placeEvent(event)
            case .resync(let resync):
                placement = member.placeResync(resync)
            }
            switch placement {
            case .placed:
                accepted(next, by: member)
            case .refused:
                member.state.withLock { state in
                    state.counts.refused += 1
                    if case .event(let event) = next { state.placed[event.sequence] = nil }
                }
                return .refused
            case .mustWait(let send):
                wait(for: next, of: member, send: send)
                return .done
            case .undecodable(let error):
                guard case .event(let event) = next else { continue }
                member.state.withLock { state in
                    state.backlog.removeFirst()
                    state.placed[event.sequence] = nil
                    state.acknowledgements.append(event.sequence)
                    state.counts.undecodable += 1
                }
                reportUndecodable(
                    event,
                    of: member.stream,
                    error: error,
                    "stream subscriber: skipped (and acknowledged) a group's event",
                    metadata: ["group": "\(member.group)"]
                )
            }
        }
        return .done
    }

    /// Records that the mailbox accepted the backlog's first delivery, `delivery`.
    private func accepted(_ delivery: StreamGroupSubscription.Pending, by member: StreamGroupSubscription) {
        member.state.withLock { state in
            state.backlog.removeFirst()
            switch delivery {
            case .event(let event):
                // With a take observer it was recorded as placed before it was offered (and may be taken already).
                if !member.tracksTakes { state.inFlight.insert(event.sequence) }
                state.counts.delivered += 1
                if event.deliveryCount > 1 { state.counts.redelivered += 1 }
            case .resync:
                state.counts.resyncs += 1
            }
        }
        let dimensions = [("stream", member.stream)]
        switch delivery {
        case .event(let event):
            Counter(label: "mainline_stream_delivered", dimensions: dimensions, factory: metricsFactory).increment()
            Recorder(label: "mainline_stream_lag_seconds", dimensions: dimensions, factory: metricsFactory)
                .record(max(Date().timeIntervalSince(event.publishedAt), 0))
        case .resync(let resync):
            Counter(label: "mainline_stream_resyncs", dimensions: dimensions, factory: metricsFactory).increment()
            logger.info(
                "stream subscriber: a group's events were gone before it acknowledged them; the member resyncs",
                metadata: [
                    "stream": "\(member.stream)", "group": "\(member.group)",
                    "lastDelivered": "\(resync.lastDelivered)", "resumesAfter": "\(resync.resumesAfter)",
                ]
            )
        }
    }

    /// Runs `send` in a task of its own that waits for room in `member`'s `.suspend` mailbox; once it placed, the
    /// delivery counts as accepted and the reader serves the member again. The reader places nothing else for the
    /// member meanwhile.
    private func wait(
        for delivery: StreamGroupSubscription.Pending,
        of member: StreamGroupSubscription,
        send: @escaping @Sendable () async throws -> Void
    ) {
        member.state.withLock { state in
            guard !state.cancelled, state.waiting == nil else { return }
            state.counts.waits += 1
            // Started under the lock: the task's first look at `waiting` (when it ends) waits for this assignment.
            state.waiting = Task { [weak self, logger] in
                do {
                    try await send()
                    // Accepted before `waiting` is cleared: the reader must not offer the delivery again.
                    guard let self else { return }
                    self.accepted(delivery, by: member)
                    member.state.withLock { $0.waiting = nil }
                    self.markGroupDue(member)
                } catch is CancellationError {
                    member.state.withLock { state in
                        state.waiting = nil
                        if case .event(let event) = delivery { state.placed[event.sequence] = nil }
                    }
                } catch {
                    member.state.withLock { state in
                        state.waiting = nil
                        if case .event(let event) = delivery { state.placed[event.sequence] = nil }
                    }
                    logger.warning(
                        "stream subscriber: the group member's mailbox takes nothing any more; the member leaves",
                        metadata: ["stream": "\(member.stream)", "group": "\(member.group)", "error": "\(error)"]
                    )
                    member.cancel()
                }
            }
        }
    }
}
#endif
