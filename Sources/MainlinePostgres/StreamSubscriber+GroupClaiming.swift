#if Postgres
import Foundation
import Logging
import PostgresNIO

/// Claiming for a group member: hand the stream's next events into the group, move the group's position, and take
/// what no other member may hold first.
extension StreamSubscriber {
    /// One claim, in one transaction under the group's row lock: hands the stream's next events into the group, moves
    /// the group's position, and claims for this member what no other member may hold first (by key); the claimed
    /// events (and a resync for a gap) go to the member's backlog.
    func claim(for member: StreamGroupSubscription, on connection: PostgresConnection) async throws {
        let wanted = member.state.withLock { $0.window - $0.held.count }
        guard wanted > 0 else { return }
        var claimed: [StreamGroupSubscription.Pending] = []
        try await inTransaction(on: connection) {
            // Only the group's row: a statement's snapshot is taken when it starts, before it waits for the lock, so
            // anything else it read (the stream's head) could predate the claim that held the lock and moved `handed`
            // past it (under READ COMMITTED the locked row itself is read again once the lock is granted). The head is
            // read by `ingest`, in a statement that starts after the lock is held.
            let lock: PostgresQuery = """
                SELECT handed FROM \(unescaped: schema.groupsTable)
                WHERE stream = \(member.stream) AND grp = \(member.group)
                FOR UPDATE
                """
            var handed: Int64?
            for try await row in try await connection.queryUnlessClosed(lock, logger: logger).decode(Int64.self) {
                handed = row
            }
            guard let handed else {
                // The group's row is gone (its tables were recreated): join again.
                member.state.withLock { $0.mustJoin = true }
                return
            }
            let (newHanded, gap) = try await ingest(
                after: handed,
                upTo: Int64(wanted),
                for: member,
                on: connection
            )
            let move: PostgresQuery = """
                UPDATE \(unescaped: schema.groupsTable) SET handed = \(newHanded), acknowledged = coalesce(
                    (SELECT min(sequence) - 1 FROM \(unescaped: schema.claimsTable)
                        WHERE stream = \(member.stream) AND grp = \(member.group)),
                    \(newHanded))
                WHERE stream = \(member.stream) AND grp = \(member.group)
                """
            _ = try await connection.queryUnlessClosed(move, logger: logger)
            let (events, gone) = try await take(upTo: Int64(wanted), for: member, on: connection)
            claimed = gap.map { [.resync($0)] } ?? []
            if let first = gone.first, let last = gone.last {
                // Claimed, but deleted by retention before the group acknowledged them: forgotten, and one resync.
                let forget: PostgresQuery = """
                    DELETE FROM \(unescaped: schema.claimsTable)
                    WHERE stream = \(member.stream) AND grp = \(member.group) AND sequence = ANY(\(gone))
                    """
                _ = try await connection.queryUnlessClosed(forget, logger: logger)
                claimed.append(
                    .resync(StreamResync(stream: member.stream, lastDelivered: first - 1, resumesAfter: last))
                )
            }
            claimed += events.map { .event($0) }
        }
        member.state.withLock { $0.backlog.append(contentsOf: claimed) }
    }

    /// Inserts claim rows (held by nobody) for up to `limit` events after `handed`; returns how far the stream is now
    /// handed into the group, and the gap before the first event, if events there were deleted.
    ///
    /// Runs under the group's row lock, so `handed` is the latest committed and nobody else moves it meanwhile. The
    /// events and the stream's head are read in one statement, so in one snapshot, taken after the lock was granted:
    /// publishers commit a stream's events in sequence order and move its head in the same transaction, so that
    /// snapshot holds every event up to the head that retention has not deleted, and a head below `handed` can only
    /// mean the stream went back (its tables were recreated). The first and last events are those the snapshot holds,
    /// not those whose claim rows this statement inserted, so a claim row that exists already cannot pass for a gap.
    private func ingest(
        after handed: Int64,
        upTo limit: Int64,
        for member: StreamGroupSubscription,
        on connection: PostgresConnection
    ) async throws -> (handed: Int64, gap: StreamResync?) {
        let query: PostgresQuery = """
            WITH ev AS MATERIALIZED (
                SELECT sequence, key FROM \(unescaped: schema.eventsTable)
                WHERE stream = \(member.stream) AND sequence > \(handed)
                ORDER BY sequence LIMIT \(limit)
            ), inserted AS (
                INSERT INTO \(unescaped: schema.claimsTable) (stream, grp, sequence, key)
                SELECT \(member.stream), \(member.group), sequence, key FROM ev
                ON CONFLICT DO NOTHING
            )
            SELECT (SELECT min(sequence) FROM ev), (SELECT max(sequence) FROM ev),
                coalesce((SELECT last_sequence FROM \(unescaped: schema.headsTable) WHERE stream = \(member.stream)), 0)
            """
        // (A data-modifying CTE runs whether or not the statement reads it.)
        var found: (first: Int64?, last: Int64?, head: Int64)?
        for try await (first, last, head) in try await connection.queryUnlessClosed(query, logger: logger)
            .decode((Int64?, Int64?, Int64).self)
        {
            found = (first, last, head)
        }
        guard let found else {
            // Unreachable: a statement of scalar subqueries returns one row.
            preconditionFailure("BUG DETECTED: handing \(member.stream.debugDescription) into a group returned no row")
        }
        guard let first = found.first, let last = found.last else {
            // Nothing after `handed`: a head beyond it means the events in between were deleted; a head before it, that
            // the stream went back (its tables were recreated). Either way the group continues from the head.
            guard found.head != handed else { return (handed, nil) }
            return (found.head, StreamResync(stream: member.stream, lastDelivered: handed, resumesAfter: found.head))
        }
        guard first > handed + 1 else { return (last, nil) }
        return (last, StreamResync(stream: member.stream, lastDelivered: handed, resumesAfter: first - 1))
    }

    /// Claims up to `limit` free claim rows in sequence order for `member`, skipping every row whose key an earlier
    /// row held by another member (with a live lease) still has; returns the claimed events in sequence order, and the
    /// sequences claimed whose events were deleted.
    private func take(
        upTo limit: Int64,
        for member: StreamGroupSubscription,
        on connection: PostgresConnection
    ) async throws -> (events: [StreamEvent<ByteBuffer>], gone: [Int64]) {
        // Materialised steps, each run once: a fresh claims table has no statistics, and the planner, taking it for
        // one row, ran a correlated anti-join once per claim row (2–4 s per claim at a few hundred rows).
        let query: PostgresQuery = """
            WITH blocked AS MATERIALIZED (
                SELECT key, min(sequence) AS first FROM \(unescaped: schema.claimsTable)
                WHERE stream = \(member.stream) AND grp = \(member.group) AND key IS NOT NULL
                    AND member <> \(member.member) AND lease_until >= now()
                GROUP BY key
            ), pick AS MATERIALIZED (
                SELECT p.sequence FROM \(unescaped: schema.claimsTable) p LEFT JOIN blocked b ON b.key = p.key
                WHERE p.stream = \(member.stream) AND p.grp = \(member.group)
                    AND (p.member IS NULL OR (p.lease_until < now() AND p.member <> \(member.member)))
                    AND (b.key IS NULL OR p.sequence < b.first)
                ORDER BY p.sequence LIMIT \(limit)
            )
            UPDATE \(unescaped: schema.claimsTable) c
            SET member = \(member.member), lease_until = now() + make_interval(secs => \(leaseSeconds)),
                deliveries = c.deliveries + 1
            FROM pick LEFT JOIN \(unescaped: schema.eventsTable) ev
                ON ev.stream = \(member.stream) AND ev.sequence = pick.sequence
            WHERE c.stream = \(member.stream) AND c.grp = \(member.group) AND c.sequence = pick.sequence
            RETURNING c.sequence, c.deliveries, ev.payload, ev.published_at, ev.key
            """
        var events: [StreamEvent<ByteBuffer>] = []
        var gone: [Int64] = []
        let rows = try await connection.queryUnlessClosed(query, logger: logger)
            .decode((Int64, Int32, ByteBuffer?, Date?, String?).self)
        for try await (sequence, deliveries, payload, publishedAt, key) in rows {
            guard let payload, let publishedAt else {
                gone.append(sequence)
                continue
            }
            events.append(
                StreamEvent(
                    stream: member.stream,
                    sequence: sequence,
                    publishedAt: publishedAt,
                    key: key,
                    value: payload,
                    deliveryCount: Int(deliveries)
                )
            )
        }
        return (events.sorted { $0.sequence < $1.sequence }, gone.sorted())
    }
}
#endif
