#if Postgres
import PostgresNIO

/// The statements of a group member, apart from its round (``GroupRoundFunction``): each builds the query the reader
/// sends for one ``GroupMember/RoundAction`` (or for stopping). None takes the group's row lock; each rewrites only
/// the member's own claim batches.
///
/// All operations on `GroupStatements` are thread-safe (its functions only build values).
enum GroupStatements {
    /// Takes the session advisory lock `(namespace, key)` unless another session holds it; one row: whether it did.
    static func lockSession(namespace: Int32, key: Int32) -> PostgresQuery {
        "SELECT pg_try_advisory_lock(\(namespace), \(key))"
    }

    /// Creates the group's row, starting after `position`, unless it exists.
    static func createGroup(
        _ member: StreamGroupSubscription,
        after position: Int64,
        in schema: StreamSchema
    ) -> PostgresQuery {
        """
        INSERT INTO \(unescaped: schema.groupsTable) (stream, grp, handed, acknowledged)
        VALUES (\(member.stream), \(member.group), \(position), \(position)) ON CONFLICT DO NOTHING
        """
    }

    /// A join's claims: takes the events of `keep` the member still holds over into `session` with a new lease (one
    /// batch) and returns them (one row of `NULL` when it holds none of them), hands every other event of the member's
    /// batches back to the group with its delivery counted back down (claimed on an earlier connection, never placed),
    /// and hints the other members when it handed any back.
    static func adopt(
        _ keep: [Int64],
        of member: StreamGroupSubscription,
        session: GroupSession,
        leaseSeconds: Double,
        in schema: StreamSchema
    ) -> PostgresQuery {
        let batches = schema.claimBatchesTable
        return """
            WITH mine AS MATERIALIZED (
                SELECT b.id, u.s, u.k, u.d, u.s = ANY(\(keep)) AS kept \(unnestedBatchesOf: member, in: batches)
            ), \(emptyingBatchesOf: member, in: batches), adopted AS (
                INSERT INTO \(unescaped: batches)
                    (stream, grp, member, session, lease_until, sequences, keys, deliveries, first)
                SELECT \(member.stream), \(member.group), \(member.member), \(Int64(session.key)),
                    now() + make_interval(secs => \(leaseSeconds)),
                    array_agg(m.s ORDER BY m.s), array_agg(m.k ORDER BY m.s), array_agg(m.d ORDER BY m.s), min(m.s)
                FROM mine m WHERE m.kept HAVING count(*) > 0
            ), released AS (
                INSERT INTO \(unescaped: batches) (stream, grp, sequences, keys, deliveries, first)
                SELECT \(member.stream), \(member.group), array_agg(m.s ORDER BY m.s), array_agg(m.k ORDER BY m.s),
                    array_agg(greatest(m.d - 1, 0) ORDER BY m.s), min(m.s)
                FROM mine m WHERE NOT m.kept HAVING count(*) > 0
                RETURNING 1
            ), hinted AS (
                SELECT count(pg_notify(\(schema.channel), '0 ' || \(member.stream))) FROM released
            )
            SELECT k.s FROM hinted h LEFT JOIN (SELECT m.s FROM mine m WHERE m.kept) k ON true
            """
    }

    /// One round: a call of ``GroupRoundFunction`` (acknowledgements, renewals and a claim in one transaction).
    static func round(
        _ member: StreamGroupSubscription,
        session: GroupSession,
        leaseSeconds: Double,
        acknowledgements: [Int64],
        renew: [Int64],
        want: Int,
        in schema: StreamSchema
    ) -> PostgresQuery {
        """
        SELECT r_kind, r_sequence, r_other, r_deliveries, r_payload, r_published_at, r_key
        FROM \(unescaped: GroupRoundFunction.name(in: schema))(
            \(member.stream), \(member.group), \(member.member), \(Int64(session.key)), \(Int64(session.namespace)),
            \(leaseSeconds), \(acknowledgements), \(renew), \(Int32(clamping: want)))
        """
    }

    /// Leaving or stopping: removes the events of `acknowledgements` from the member's batches, hands back every other
    /// event of them except `keep` (those in `uncount`, or all when it is `nil`, with their delivery counted back
    /// down: claimed, never placed), hints the other members when it handed any back, and returns how many
    /// acknowledgements were still the member's.
    static func release(
        _ member: StreamGroupSubscription,
        acknowledgements: [Int64],
        keep: [Int64],
        uncount: [Int64]?,
        in schema: StreamSchema
    ) -> PostgresQuery {
        let batches = schema.claimBatchesTable
        return """
            WITH mine AS MATERIALIZED (
                SELECT b.id, b.session, b.lease_until, u.s, u.k, u.d,
                    u.s = ANY(\(acknowledgements)) AS done, u.s = ANY(\(keep)) AS kept,
                    (\(uncount == nil) OR u.s = ANY(\(uncount ?? []))) AS uncounted
                \(unnestedBatchesOf: member, in: batches)
            ), \(emptyingBatchesOf: member, in: batches), kept AS (
                INSERT INTO \(unescaped: batches)
                    (stream, grp, member, session, lease_until, sequences, keys, deliveries, first)
                SELECT \(member.stream), \(member.group), \(member.member), m.session, m.lease_until,
                    array_agg(m.s ORDER BY m.s), array_agg(m.k ORDER BY m.s), array_agg(m.d ORDER BY m.s), min(m.s)
                FROM mine m WHERE m.kept AND NOT m.done GROUP BY m.id, m.session, m.lease_until
            ), released AS (
                INSERT INTO \(unescaped: batches) (stream, grp, sequences, keys, deliveries, first)
                SELECT \(member.stream), \(member.group), array_agg(m.s ORDER BY m.s), array_agg(m.k ORDER BY m.s),
                    array_agg(greatest(m.d - CASE WHEN m.uncounted THEN 1 ELSE 0 END, 0) ORDER BY m.s), min(m.s)
                FROM mine m WHERE NOT m.kept AND NOT m.done HAVING count(*) > 0
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM mine m WHERE m.done),
                (SELECT count(pg_notify(\(schema.channel), '0 ' || \(member.stream))) FROM released)
            """
    }
}

/// The parts the member's statements share: its claim batches, one row per event, and their deletion.
extension PostgresQuery.StringInterpolation {
    /// `FROM <batches> b, unnest(…) AS u(s, k, d) WHERE …`: every event of `member`'s claim batches, one row each —
    /// `b` the batch (`b.id`, `b.session`, `b.lease_until`), `u.s` its sequence, `u.k` its key, `u.d` its delivery
    /// count.
    mutating func appendInterpolation(unnestedBatchesOf member: StreamGroupSubscription, in batches: String) {
        appendLiteral("FROM \(batches) b, unnest(b.sequences, b.keys, b.deliveries) AS u(s, k, d) WHERE b.stream = ")
        appendInterpolation(member.stream)
        appendLiteral(" AND b.grp = ")
        appendInterpolation(member.group)
        appendLiteral(" AND b.member = ")
        appendInterpolation(member.member)
    }

    /// `emptied AS (DELETE …)`: the common table expression that deletes every batch a CTE `mine` (of
    /// ``appendInterpolation(unnestedBatchesOf:in:)``'s rows) read, for the statement to write back what it keeps.
    mutating func appendInterpolation(emptyingBatchesOf member: StreamGroupSubscription, in batches: String) {
        appendLiteral("emptied AS (DELETE FROM \(batches) b WHERE b.stream = ")
        appendInterpolation(member.stream)
        appendLiteral(" AND b.grp = ")
        appendInterpolation(member.group)
        appendLiteral(" AND b.id IN (SELECT m.id FROM mine m))")
    }
}
#endif
