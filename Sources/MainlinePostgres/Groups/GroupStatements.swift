#if Postgres
import PostgresNIO

/// The statements of a group member, apart from its round (``GroupRoundFunction``): each builds the query the reader
/// sends for one ``GroupMember/RoundAction`` (or for stopping). No statement here takes the group's row lock.
///
/// All operations on `GroupStatements` are thread-safe (its functions only build values).
enum GroupStatements {
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

    /// A join's claims: takes `keep` over into `session` with a new lease and returns the sequences it still held
    /// (the others are lost; one row of `NULL` when it held none), hands every other claim of the member back to the group with its delivery counted back
    /// down (claimed on an earlier connection, never placed), and hints the other members when it handed any back.
    static func adopt(
        _ keep: [Int64],
        of member: StreamGroupSubscription,
        session: GroupSession,
        leaseSeconds: Double,
        in schema: StreamSchema
    ) -> PostgresQuery {
        """
        WITH kept AS (
            UPDATE \(unescaped: schema.claimsTable)
            SET session = \(Int64(session.key)), lease_until = now() + make_interval(secs => \(leaseSeconds))
            WHERE stream = \(member.stream) AND grp = \(member.group) AND member = \(member.member)
                AND sequence = ANY(\(keep))
            RETURNING sequence
        ), released AS (
            UPDATE \(unescaped: schema.claimsTable)
            SET member = NULL, lease_until = NULL, session = NULL, deliveries = greatest(deliveries - 1, 0)
            WHERE stream = \(member.stream) AND grp = \(member.group) AND member = \(member.member)
                AND NOT (sequence = ANY(\(keep)))
            RETURNING 1
        ), hinted AS (
            SELECT count(pg_notify(\(schema.channel), '0 ' || \(member.stream))) FROM (SELECT 1 FROM released LIMIT 1) r
        )
        SELECT k.sequence FROM hinted h LEFT JOIN kept k ON true
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

    /// Leaving or stopping: deletes the claims of `acknowledgements` (where the member still holds them), hands back
    /// every other claim of the member except `keep` (those in `uncount`, or all when it is `nil`, with their delivery
    /// counted back down: claimed, never placed), hints the other members when it handed any back, and returns how many acknowledgements it
    /// deleted.
    static func release(
        _ member: StreamGroupSubscription,
        acknowledgements: [Int64],
        keep: [Int64],
        uncount: [Int64]?,
        in schema: StreamSchema
    ) -> PostgresQuery {
        """
        WITH gone AS (
            DELETE FROM \(unescaped: schema.claimsTable)
            WHERE stream = \(member.stream) AND grp = \(member.group) AND member = \(member.member)
                AND sequence = ANY(\(acknowledgements))
            RETURNING 1
        ), released AS (
            UPDATE \(unescaped: schema.claimsTable)
            SET member = NULL, lease_until = NULL, session = NULL,
                deliveries = greatest(deliveries - CASE WHEN \(uncount == nil) OR sequence = ANY(\(uncount ?? [])) THEN 1 ELSE 0 END, 0)
            WHERE stream = \(member.stream) AND grp = \(member.group) AND member = \(member.member)
                AND NOT (sequence = ANY(\(acknowledgements))) AND NOT (sequence = ANY(\(keep)))
            RETURNING 1
        )
        SELECT (SELECT count(*) FROM gone),
            (SELECT count(pg_notify(\(schema.channel), '0 ' || \(member.stream))) FROM (SELECT 1 FROM released LIMIT 1) r)
        """
    }
}
#endif
