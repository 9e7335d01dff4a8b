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

    /// Places every event of `subscription`'s stream after its position, in order, reading batches from the table
    /// (at least once) and skipping sequences it already has (so exactly once). Runs on the reader task only.
    func catchUp(_ subscription: StreamSubscription, on connection: PostgresConnection) async throws -> CatchUpResult {
        let stream = subscription.stream
        var cursor: Int64
        if let position = subscription.lastSequence {
            cursor = position
        } else {
            cursor = try await startPosition(of: subscription, on: connection)
            subscription.state.withLock { $0.cursor = cursor }
        }
        while !subscription.isCancelled {
            // One statement, one snapshot: the head and the rows after the cursor agree. Writers of a stream commit in
            // sequence order (StreamPublisher), so every sequence up to the head is visible here unless it was
            // deleted: a missing one is a gap that cannot be filled.
            let query: PostgresQuery = """
                SELECT h.last_sequence, e.sequence, e.payload, e.published_at
                FROM \(unescaped: schema.headsTable) h
                LEFT JOIN LATERAL (
                    SELECT sequence, payload, published_at FROM \(unescaped: schema.eventsTable)
                    WHERE stream = h.stream AND sequence > \(cursor)
                    ORDER BY sequence LIMIT \(Int64(options.batchSize))
                ) e ON true
                WHERE h.stream = \(stream)
                """
            var head: Int64 = 0
            var events: [StreamEvent<ByteBuffer>] = []
            let rows = try await connection.queryUnlessClosed(query, logger: logger)
                .decode((Int64, Int64?, ByteBuffer?, Date?).self)
            for try await (last, sequence, payload, publishedAt) in rows {
                head = last
                if let sequence, let payload, let publishedAt {
                    events.append(
                        StreamEvent(stream: stream, sequence: sequence, publishedAt: publishedAt, value: payload)
                    )
                }
            }
            guard let first = events.first else {
                // Nothing after the cursor. A head beyond it means the rows in between were deleted; a head before
                // it means the stream went back (its tables were recreated). Either way, start over from the head.
                if head != cursor {
                    guard resync(subscription, from: cursor, to: head) else { return .refused }
                }
                return .done
            }
            if first.sequence > cursor + 1 {
                guard resync(subscription, from: cursor, to: first.sequence - 1) else { return .refused }
                cursor = first.sequence - 1
            }
            for event in events where event.sequence > cursor {
                if subscription.isCancelled { return .done }
                switch subscription.placeEvent(event) {
                case .placed:
                    subscription.state.withLock { state in
                        state.cursor = event.sequence
                        state.counts.delivered += 1
                    }
                    Counter(
                        label: "mainline_stream_delivered",
                        dimensions: [("stream", stream)],
                        factory: metricsFactory
                    )
                    .increment()
                    let lag = Date().timeIntervalSince(event.publishedAt)
                    Recorder(
                        label: "mainline_stream_lag_seconds",
                        dimensions: [("stream", stream)],
                        factory: metricsFactory
                    )
                    .record(max(lag, 0))
                case .refused:
                    subscription.state.withLock { $0.counts.refused += 1 }
                    return .refused
                case .undecodable(let error):
                    subscription.state.withLock { state in
                        state.cursor = event.sequence
                        state.counts.undecodable += 1
                    }
                    Counter(
                        label: "mainline_stream_bad_input",
                        dimensions: [("kind", "undecodable_payload")],
                        factory: metricsFactory
                    )
                    .increment()
                    let reported = StreamError.undecodablePayload(
                        stream: stream,
                        sequence: event.sequence,
                        underlying: error
                    )
                    logger.warning("stream subscriber: skipped an event", metadata: ["error": "\(reported)"])
                }
                cursor = event.sequence
            }
            if events.count < options.batchSize { return .done }
        }
        return .done
    }

    /// Places a resync and moves the position past the gap; `false` when the mailbox refused it (nothing moved).
    private func resync(_ subscription: StreamSubscription, from cursor: Int64, to resumesAfter: Int64) -> Bool {
        let resync = StreamResync(stream: subscription.stream, lastDelivered: cursor, resumesAfter: resumesAfter)
        guard !subscription.isCancelled else { return true }
        guard subscription.placeResync(resync) else {
            subscription.state.withLock { $0.counts.refused += 1 }
            return false
        }
        subscription.state.withLock { state in
            state.cursor = resumesAfter
            state.counts.resyncs += 1
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
                "stream": "\(subscription.stream)", "lastDelivered": "\(cursor)", "resumesAfter": "\(resumesAfter)",
            ]
        )
        return true
    }

    /// The sequence a new subscription starts after.
    private func startPosition(
        of subscription: StreamSubscription,
        on connection: PostgresConnection
    ) async throws
        -> Int64
    {
        let query: PostgresQuery
        switch subscription.start {
        case .after(let sequence):
            return max(sequence, 0)
        case .latest:
            query = """
                SELECT last_sequence FROM \(unescaped: schema.headsTable) WHERE stream = \(subscription.stream)
                """
        case .oldestAvailable:
            query = """
                SELECT coalesce(
                    (SELECT min(sequence) - 1 FROM \(unescaped: schema.eventsTable)
                        WHERE stream = \(subscription.stream)),
                    (SELECT last_sequence FROM \(unescaped: schema.headsTable) WHERE stream = \(subscription.stream)),
                    0)
                """
        }
        var position: Int64 = 0
        for try await value in try await connection.queryUnlessClosed(query, logger: logger).decode(Int64.self) {
            position = value
        }
        return position
    }
}
#endif
