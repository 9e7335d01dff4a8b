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
        while let next = member.machine.withLock({ $0.nextOffer() }) {
            let placement: StreamSubscription._Placement
            switch next {
            case .event(let event): placement = member.placeEvent(event)
            case .resync(let resync): placement = member.placeResync(resync)
            }
            switch placement {
            case .placed:
                member.machine.withLock { $0.offered(.placed) }
                report(next, of: member)
            case .refused:
                member.machine.withLock { $0.offered(.refused) }
                return .refused
            case .mustWait(let send):
                wait(for: next, of: member, send: send)
                return .done
            case .undecodable(let error):
                member.machine.withLock { $0.offered(.undecodable) }
                guard case .event(let event) = next else { continue }
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

    /// Metrics (and, for a resync, a log line) for a delivery the mailbox accepted.
    private func report(_ delivery: StreamGroupSubscription.Pending, of member: StreamGroupSubscription) {
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
        member.machine.withLock { machine in
            guard machine.mustWaitForRoom() else { return }
            // Started under the machine's lock, which `cancel()` takes before it cancels the task: a cancellation
            // either comes first (and no wait starts) or finds the task.
            member.waiting.withLock { waiting in
                waiting = Task { [weak self, logger] in
                    do {
                        try await send()
                        member.machine.withLock { $0.waitEnded(accepted: true) }
                        member.waiting.withLock { $0 = nil }
                        self?.report(delivery, of: member)
                        self?.markGroupDue(member)
                    } catch is CancellationError {
                        member.machine.withLock { $0.waitEnded(accepted: false) }
                        member.waiting.withLock { $0 = nil }
                    } catch {
                        member.machine.withLock { $0.waitEnded(accepted: false) }
                        member.waiting.withLock { $0 = nil }
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
}
#endif
