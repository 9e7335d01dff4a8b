#if Postgres
import CoreMetrics
import Foundation
import Logging
import PostgresNIO

/// A member's round on the reader task: join, write acknowledgements, renew leases, claim
/// (`StreamSubscriber+GroupClaiming.swift`), place (`StreamSubscriber+GroupPlacing.swift`).
///
/// Claims are serialised per group by the row lock on the group's row (`SELECT … FOR UPDATE`, held for one short
/// transaction of a few statements): key order needs each claim to see every claim committed before it, which
/// `FOR UPDATE SKIP LOCKED` on the claim rows cannot give (a skipped row of a key would let a later row of that key go
/// to another member). Acknowledgements and renewals touch only the member's own rows and take no group lock.
extension StreamSubscriber {
    /// Runs one round for `member`. Runs on the reader task only.
    func serve(_ member: StreamGroupSubscription, on connection: PostgresConnection) async throws -> CatchUpResult {
        let (cancelled, mustJoin, renew, acknowledgements) = member.state.withLock { state in
            defer { state.renewalDue = false }
            return (state.cancelled, state.mustJoin, state.renewalDue, state.acknowledgements)
        }
        if !acknowledgements.isEmpty { try await write(acknowledgements, of: member, on: connection) }
        if cancelled {
            try await leave(member, on: connection)
            return .done
        }
        if mustJoin { try await join(member, on: connection) }
        if renew { try await renewLeases(of: member, on: connection) }
        if placeBacklog(of: member) == .refused { return .refused }
        guard member.state.withLock({ $0.wantsToClaim }) else { return .done }
        try await claim(for: member, on: connection)
        return placeBacklog(of: member)
    }

    /// The lease as seconds, for `make_interval`.
    var leaseSeconds: Double {
        let (seconds, attoseconds) = options.groupLease.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Runs `body` in a transaction on the reader's connection (abandoned, like every reader query, if the connection
    /// closes: the server rolls it back).
    func inTransaction(
        on connection: PostgresConnection,
        _ body: () async throws -> Void
    ) async throws {
        _ = try await connection.queryUnlessClosed("BEGIN", logger: logger)
        do {
            try await body()
            _ = try await connection.queryUnlessClosed("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.queryUnlessClosed("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// Creates the group's row if it is new, and hands back to the group what this member claimed but never placed
    /// (a new connection: the member may have been away longer than a lease). What it placed it keeps, renewed.
    private func join(_ member: StreamGroupSubscription, on connection: PostgresConnection) async throws {
        let position = try await startPosition(of: member.stream, from: member.start, on: connection)
        let create: PostgresQuery = """
            INSERT INTO \(unescaped: schema.groupsTable) (stream, grp, handed, acknowledged)
            VALUES (\(member.stream), \(member.group), \(position), \(position)) ON CONFLICT DO NOTHING
            """
        _ = try await connection.queryUnlessClosed(create, logger: logger)
        try await handBackUnplaced(member, on: connection)
        member.state.withLock { $0.mustJoin = false }
        try await renewLeases(of: member, on: connection)
    }

    /// Hands back to the group, uncounted (its delivery count goes back down), what `member` claimed but has not
    /// placed in its mailbox, forgets it, and hints the other members if there was any; what it placed (and what its
    /// consumer acknowledged, until that is written) it keeps.
    ///
    /// On joining, this drops what an earlier connection claimed; on stopping, it lets the other members take at once
    /// what this one will not place, instead of at its lease's end.
    func handBackUnplaced(_ member: StreamGroupSubscription, on connection: PostgresConnection) async throws {
        let keep = member.state.withLock { state in
            // A delivery waiting for room stays: its sender task holds it.
            state.backlog.removeLast(state.waiting == nil ? state.backlog.count : state.backlog.count - 1)
            // So do acknowledgements not written yet: the consumer may have acknowledged since the round wrote the last
            // ones, and an event handed back before its acknowledgement is written would be delivered again.
            return state.held + state.acknowledgements
        }
        let release: PostgresQuery = """
            WITH released AS (
                UPDATE \(unescaped: schema.claimsTable)
                SET member = NULL, lease_until = NULL, deliveries = greatest(deliveries - 1, 0)
                WHERE stream = \(member.stream) AND grp = \(member.group) AND member = \(member.member)
                    AND NOT (sequence = ANY(\(keep)))
                RETURNING 1
            )
            SELECT count(pg_notify(\(schema.channel), '0 ' || \(member.stream)))
            FROM (SELECT 1 FROM released LIMIT 1) r
            """
        _ = try await connection.queryUnlessClosed(release, logger: logger)
    }

    /// Deletes the acknowledged claims (only where this member still holds them), and hints the other members when an
    /// acknowledged key has events waiting for it.
    func write(
        _ acknowledgements: [Int64],
        of member: StreamGroupSubscription,
        on connection: PostgresConnection
    ) async throws {
        let query: PostgresQuery = """
            WITH gone AS (
                DELETE FROM \(unescaped: schema.claimsTable)
                WHERE stream = \(member.stream) AND grp = \(member.group) AND member = \(member.member)
                    AND sequence = ANY(\(acknowledgements))
                RETURNING key
            ), waiting AS (
                SELECT 1 FROM \(unescaped: schema.claimsTable) c JOIN gone g ON c.key = g.key
                WHERE c.stream = \(member.stream) AND c.grp = \(member.group) AND c.member IS NULL LIMIT 1
            )
            SELECT (SELECT count(*) FROM gone),
                (SELECT count(pg_notify(\(schema.channel), '0 ' || \(member.stream))) FROM waiting)
            """
        var deleted = 0
        for try await (count, _) in try await connection.queryUnlessClosed(query, logger: logger)
            .decode((Int64, Int64).self)
        {
            deleted = Int(count)
        }
        member.state.withLock { state in
            state.acknowledgements.removeFirst(acknowledgements.count)
            state.counts.staleAcknowledgements += acknowledgements.count - deleted
        }
    }

    /// Extends the leases of everything this member holds.
    private func renewLeases(of member: StreamGroupSubscription, on connection: PostgresConnection) async throws {
        let held = member.state.withLock { $0.held }
        guard !held.isEmpty else { return }
        let query: PostgresQuery = """
            UPDATE \(unescaped: schema.claimsTable) SET lease_until = now() + make_interval(secs => \(leaseSeconds))
            WHERE stream = \(member.stream) AND grp = \(member.group) AND member = \(member.member)
                AND sequence = ANY(\(held))
            """
        _ = try await connection.queryUnlessClosed(query, logger: logger)
    }

    /// Hands everything this member holds back to the group (those it never placed uncounted), hints the other
    /// members, and unregisters it.
    private func leave(_ member: StreamGroupSubscription, on connection: PostgresConnection) async throws {
        let unplaced = member.state.withLock { state in
            state.backlog.compactMap { if case .event(let event) = $0 { event.sequence } else { nil } }
        }
        let query: PostgresQuery = """
            WITH released AS (
                UPDATE \(unescaped: schema.claimsTable)
                SET member = NULL, lease_until = NULL,
                    deliveries = deliveries - CASE WHEN sequence = ANY(\(unplaced)) THEN 1 ELSE 0 END
                WHERE stream = \(member.stream) AND grp = \(member.group) AND member = \(member.member)
                RETURNING 1
            )
            SELECT count(pg_notify(\(schema.channel), '0 ' || \(member.stream)))
            FROM (SELECT 1 FROM released LIMIT 1) r
            """
        _ = try await connection.queryUnlessClosed(query, logger: logger)
        registry.withLock { registry in
            registry.groups[member.id] = nil
            registry.dueGroups.remove(member.id)
        }
    }
}
#endif
