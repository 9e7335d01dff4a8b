#if Postgres
import CoreMetrics
import Foundation
import Logging
import PostgresNIO

extension StreamSubscriber {
    enum CatchUpResult {
        /// Everything committed when it read has been placed (or the subscription was cancelled).
        case done
        /// The mailbox refused a delivery; read again later from the same position.
        case refused
    }

    /// What one offer of a resync came to.
    private enum Offered {
        /// Placed, or handed to a waiting sender: go on (placing nothing more while a sender waits).
        case placed
        /// Handed to a sender that waits for room: stop reading this stream until it placed.
        case waiting
        /// Refused: stop, read again later.
        case refused
    }

    /// Places every event of `subscription`'s stream after its position, in order, reading batches from the table
    /// (at least once) and skipping sequences it already has (so exactly once). Runs on the reader task only.
    func catchUp(_ subscription: StreamSubscription, on connection: PostgresConnection) async throws -> CatchUpResult {
        // A delivery waits for room in the mailbox: nothing after it may be placed first. It marks the subscription
        // due when it was placed.
        if subscription.state.withLock({ $0.waiting != nil }) { return .done }
        let stream = subscription.stream
        var cursor: Int64
        if let position = subscription.lastSequence {
            cursor = position
        } else {
            if case .stored(let name, let initially) = subscription.start {
                guard
                    let stored = try await storedPosition(
                        of: subscription,
                        name: name,
                        initially: initially,
                        on: connection
                    )
                else { return .done }
                cursor = stored
            } else {
                cursor = try await startPosition(of: subscription.stream, from: subscription.start, on: connection)
            }
            subscription.state.withLock { $0.cursor = cursor }
        }
        while !subscription.isCancelled {
            // One statement, one snapshot: the head and the rows after the cursor agree.
            let query = SubscriberStatements.catchUp(stream, after: cursor, limit: options.batchSize, in: schema)
            var head: Int64 = 0
            var events: [StreamEvent<ByteBuffer>] = []
            let rows = try await connection.queryUnlessClosed(query, logger: logger)
                .decode((Int64, Int64?, ByteBuffer?, Date?, String?).self)
            for try await (last, sequence, payload, publishedAt, key) in rows {
                head = last
                if let sequence, let payload, let publishedAt {
                    events.append(
                        StreamEvent(
                            stream: stream,
                            sequence: sequence,
                            publishedAt: publishedAt,
                            key: key,
                            value: payload
                        )
                    )
                }
            }
            subscription.state.withLock { $0.head = head }
            guard let first = events.first else {
                // Nothing after the cursor. A head beyond it means the rows in between were deleted; a head before
                // it means the stream went back (its tables were recreated). Either way, start over from the head.
                if head != cursor {
                    switch resync(subscription, from: cursor, to: head) {
                    case .placed, .waiting: return .done
                    case .refused: return .refused
                    }
                }
                return .done
            }
            if first.sequence > cursor + 1 {
                switch resync(subscription, from: cursor, to: first.sequence - 1) {
                case .placed: cursor = first.sequence - 1
                case .waiting: return .done
                case .refused: return .refused
                }
            }
            for event in events where event.sequence > cursor {
                if subscription.isCancelled { return .done }
                switch subscription.placeEvent(event) {
                case .placed:
                    placed(event, of: subscription)
                case .mustWait(let send):
                    waitForRoom(subscription, send: send) { self.placed(event, of: subscription) }
                    return .done
                case .refused:
                    subscription.state.withLock { $0.counts.refused += 1 }
                    return .refused
                case .undecodable(let error):
                    subscription.state.withLock { state in
                        state.cursor = event.sequence
                        state.counts.undecodable += 1
                    }
                    reportUndecodable(event, of: stream, error: error, "stream subscriber: skipped an event")
                }
                cursor = event.sequence
            }
            if events.count < options.batchSize { return .done }
        }
        return .done
    }

    /// Counts (`mainline_stream_bad_input`, kind `undecodable_payload`) and logs an event of `stream` whose payload
    /// `error` kept from decoding; `metadata` adds to the log line's.
    func reportUndecodable(
        _ event: StreamEvent<ByteBuffer>,
        of stream: String,
        error: any Error,
        _ message: Logger.Message,
        metadata: Logger.Metadata = [:]
    ) {
        Counter(
            label: "mainline_stream_bad_input",
            dimensions: [("kind", "undecodable_payload")],
            factory: metricsFactory
        )
        .increment()
        let reported = StreamError.undecodablePayload(stream: stream, sequence: event.sequence, underlying: error)
        logger.warning(message, metadata: metadata.merging(["error": "\(reported)"]) { _, new in new })
    }

    /// Records that `event` (of `subscription`'s stream) is in the mailbox: the position, the counts, the metrics.
    private func placed(_ event: StreamEvent<ByteBuffer>, of subscription: StreamSubscription) {
        subscription.state.withLock { state in
            state.cursor = event.sequence
            state.lastPublishedAt = event.publishedAt
            state.counts.delivered += 1
            // Without a take observer, placing is taking (a `place` closure consumes at once).
            if !subscription.tracksTakes && state.taken != nil { state.taken = event.sequence }
        }
        let dimensions = [("stream", subscription.stream)]
        Counter(label: "mainline_stream_delivered", dimensions: dimensions, factory: metricsFactory).increment()
        let lag = Date().timeIntervalSince(event.publishedAt)
        Recorder(label: "mainline_stream_lag_seconds", dimensions: dimensions, factory: metricsFactory)
            .record(max(lag, 0))
    }

    /// Offers a resync; once it is placed (now, or after a wait for room) the position moves past the gap.
    private func resync(_ subscription: StreamSubscription, from cursor: Int64, to resumesAfter: Int64) -> Offered {
        let resync = StreamResync(stream: subscription.stream, lastDelivered: cursor, resumesAfter: resumesAfter)
        guard !subscription.isCancelled else { return .placed }
        switch subscription.placeResync(resync) {
        case .placed:
            resynced(resync, of: subscription)
            return .placed
        case .mustWait(let send):
            waitForRoom(subscription, send: send) { self.resynced(resync, of: subscription) }
            return .waiting
        case .refused, .undecodable:
            subscription.state.withLock { $0.counts.refused += 1 }
            return .refused
        }
    }

    /// Records that `resync` is in the mailbox: the position moves past the gap, counted, metered and logged.
    private func resynced(_ resync: StreamResync, of subscription: StreamSubscription) {
        subscription.state.withLock { state in
            state.cursor = resync.resumesAfter
            state.lastResync = (resync.lastDelivered, resync.resumesAfter)
            state.counts.resyncs += 1
            if !subscription.tracksTakes && state.taken != nil { state.taken = resync.resumesAfter }
        }
        Counter(
            label: "mainline_stream_resyncs",
            dimensions: [("stream", subscription.stream)],
            factory: metricsFactory
        )
        .increment()
        logger.info(
            "stream subscriber: events were gone; the subscription resyncs",
            metadata: [
                "stream": "\(subscription.stream)", "lastDelivered": "\(resync.lastDelivered)",
                "resumesAfter": "\(resync.resumesAfter)",
            ]
        )
    }

    /// The sequence a new subscription (or group) of `stream` starts after.
    func startPosition(
        of stream: String,
        from start: StreamStart,
        on connection: PostgresConnection
    ) async throws
        -> Int64
    {
        let query: PostgresQuery
        switch start {
        case .after(let sequence):
            return max(sequence, 0)
        case .stored(_, let initially):
            return try await startPosition(of: stream, from: initially, on: connection)
        case .latest:
            query = SubscriberStatements.head(of: stream, in: schema)
        case .oldestAvailable:
            query = SubscriberStatements.beforeOldest(of: stream, in: schema)
        }
        var position: Int64 = 0
        for try await value in try await connection.queryUnlessClosed(query, logger: logger).decode(Int64.self) {
            position = value
        }
        return position
    }
}
#endif
