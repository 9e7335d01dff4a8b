#if Postgres
/// The server function behind a group member's round: `<prefix>_group_round_v1`, created by
/// ``StreamSchema/create(on:logger:)`` with the tables.
///
/// One call is one round of one member, in one transaction that holds the group's row lock only while the function
/// runs (microseconds, not a client round trip):
/// 1. Deletes the claims of the events the member acknowledged (its own only) and hints the other members when an
///    acknowledged key has events waiting for it; renews the leases of the claims it asks to renew.
/// 2. When the member wants events: locks the group's row, reads which members' database sessions are alive (their
///    session advisory locks in `pg_locks`), then, in a later statement (so a later snapshot, taken with the lock
///    held), reads the stream's next events after `handed` and the stream's head together. Publishers commit a
///    stream's events in sequence order and move its head in the same transaction, so that snapshot holds every event
///    up to the head that retention has not deleted; a gap before the first of them is reported (a resync), judged
///    from the events that exist.
/// 3. Picks, in sequence order, up to the number wanted among the claims nobody holds, the claims of members whose
///    lease ran out or whose session is gone, and the new events — skipping every event whose key an earlier event
///    held by another live member still has. New events are inserted as claims (held by this member when picked,
///    free otherwise), picked claims are taken over (their delivery count goes up), and the picked events are
///    returned with their payloads; a picked claim whose event retention deleted is forgotten and reported.
/// 4. Moves the group's `handed` and `acknowledged`.
///
/// Rows returned, `(r_kind, r_sequence, r_other, r_deliveries, r_payload, r_published_at, r_key)` by kind:
/// - `1` an event claimed: its sequence, delivery count, payload, publication time and key;
/// - `2` a claim whose event was gone (deleted by retention): its sequence;
/// - `3` a gap: `r_sequence` the last event handed in before it, `r_other` the last one gone;
/// - `4` the group's row is missing (its tables were recreated): the member must join again;
/// - `0` last, always: `r_sequence` the acknowledgements deleted, `r_other` the claims other members hold.
enum GroupRoundFunction {
    /// The function's name for `schema`.
    static func name(in schema: StreamSchema) -> String { "\(schema.tablePrefix)_group_round_v1" }

    /// `CREATE OR REPLACE FUNCTION` for `schema` (its identifiers were validated, so writing them into the text is
    /// safe).
    static func definition(in schema: StreamSchema) -> String {
        let claims = schema.claimsTable
        let events = schema.eventsTable
        return """
            CREATE OR REPLACE FUNCTION \(name(in: schema))(
                p_stream text, p_grp text, p_member text, p_session bigint, p_namespace bigint,
                p_lease double precision, p_acknowledged bigint[], p_renew bigint[], p_want integer
            ) RETURNS TABLE (
                r_kind integer, r_sequence bigint, r_other bigint, r_deliveries integer,
                r_payload bytea, r_published_at timestamptz, r_key text
            ) LANGUAGE plpgsql VOLATILE AS $round$
            DECLARE
                v_deleted bigint := 0;
                v_waiting boolean := false;
                v_handed bigint;
                v_live bigint[];
                v_sequences bigint[];
                v_keys text[];
                v_head bigint;
                v_handed_now bigint;
                v_taken bigint[];
                v_counts integer[];
                v_others bigint := 0;
            BEGIN
                IF cardinality(p_acknowledged) > 0 THEN
                    WITH gone AS (
                        DELETE FROM \(claims) c
                        WHERE c.stream = p_stream AND c.grp = p_grp AND c.member = p_member
                            AND c.sequence = ANY(p_acknowledged)
                        RETURNING c.key
                    )
                    SELECT count(*), coalesce(bool_or(EXISTS (
                        SELECT 1 FROM \(claims) w
                        WHERE w.stream = p_stream AND w.grp = p_grp AND w.member IS NULL AND w.key = gone.key
                    )), false)
                    INTO v_deleted, v_waiting FROM gone;
                    IF v_waiting THEN
                        PERFORM pg_notify('\(schema.channel)', '0 ' || p_stream);
                    END IF;
                END IF;
                IF cardinality(p_renew) > 0 THEN
                    UPDATE \(claims) c SET lease_until = now() + make_interval(secs => p_lease), session = p_session
                    WHERE c.stream = p_stream AND c.grp = p_grp AND c.member = p_member AND c.sequence = ANY(p_renew);
                END IF;
                IF p_want <= 0 THEN
                    RETURN QUERY SELECT 0, v_deleted, v_others, NULL::integer, NULL::bytea, NULL::timestamptz,
                        NULL::text;
                    RETURN;
                END IF;
                SELECT g.handed INTO v_handed FROM \(schema.groupsTable) g
                WHERE g.stream = p_stream AND g.grp = p_grp FOR UPDATE;
                IF NOT FOUND THEN
                    RETURN QUERY SELECT 4, NULL::bigint, NULL::bigint, NULL::integer, NULL::bytea,
                        NULL::timestamptz, NULL::text;
                    RETURN QUERY SELECT 0, v_deleted, v_others, NULL::integer, NULL::bytea, NULL::timestamptz,
                        NULL::text;
                    RETURN;
                END IF;
                v_live := ARRAY(
                    SELECT l.objid::bigint FROM pg_locks l
                    WHERE l.locktype = 'advisory' AND l.classid::bigint = p_namespace AND l.objsubid = 2 AND l.granted
                );
                SELECT coalesce(array_agg(e.sequence ORDER BY e.sequence), '{}'),
                    coalesce(array_agg(e.key ORDER BY e.sequence), '{}'),
                    coalesce((SELECT h.last_sequence FROM \(schema.headsTable) h WHERE h.stream = p_stream), 0)
                INTO v_sequences, v_keys, v_head
                FROM (
                    SELECT ev.sequence, ev.key FROM \(events) ev
                    WHERE ev.stream = p_stream AND ev.sequence > v_handed
                    ORDER BY ev.sequence LIMIT p_want
                ) e;
                IF cardinality(v_sequences) = 0 THEN
                    v_handed_now := v_head;
                    IF v_head <> v_handed THEN
                        RETURN QUERY SELECT 3, v_handed, v_head, NULL::integer, NULL::bytea, NULL::timestamptz,
                            NULL::text;
                    END IF;
                ELSE
                    v_handed_now := v_sequences[cardinality(v_sequences)];
                    IF v_sequences[1] > v_handed + 1 THEN
                        RETURN QUERY SELECT 3, v_handed, v_sequences[1] - 1, NULL::integer, NULL::bytea,
                            NULL::timestamptz, NULL::text;
                    END IF;
                END IF;
                WITH blocked AS MATERIALIZED (
                    SELECT c.key, min(c.sequence) AS first FROM \(claims) c
                    WHERE c.stream = p_stream AND c.grp = p_grp AND c.key IS NOT NULL AND c.member <> p_member
                        AND c.lease_until >= now() AND (c.session IS NULL OR c.session = ANY(v_live))
                    GROUP BY c.key
                ), candidates AS MATERIALIZED (
                    SELECT c.sequence, c.key, false AS fresh FROM \(claims) c
                    WHERE c.stream = p_stream AND c.grp = p_grp AND (c.member IS NULL OR (c.member <> p_member
                        AND (c.lease_until < now() OR (c.session IS NOT NULL AND NOT c.session = ANY(v_live)))))
                    UNION ALL
                    SELECT n.s, n.k, true FROM unnest(v_sequences, v_keys) AS n(s, k)
                ), pick AS MATERIALIZED (
                    SELECT p.sequence, p.fresh FROM candidates p LEFT JOIN blocked b ON b.key = p.key
                    WHERE b.key IS NULL OR p.sequence < b.first
                    ORDER BY p.sequence LIMIT p_want
                ), inserted AS (
                    INSERT INTO \(claims) AS c (stream, grp, sequence, key, member, lease_until, deliveries, session)
                    SELECT p_stream, p_grp, n.s, n.k,
                        CASE WHEN k.sequence IS NULL THEN NULL ELSE p_member END,
                        CASE WHEN k.sequence IS NULL THEN NULL ELSE now() + make_interval(secs => p_lease) END,
                        CASE WHEN k.sequence IS NULL THEN 0 ELSE 1 END,
                        CASE WHEN k.sequence IS NULL THEN NULL ELSE p_session END
                    FROM unnest(v_sequences, v_keys) AS n(s, k) LEFT JOIN pick k ON k.sequence = n.s AND k.fresh
                    ON CONFLICT DO NOTHING
                    RETURNING c.sequence, c.deliveries, c.member
                ), taken AS (
                    UPDATE \(claims) c SET member = p_member, lease_until = now() + make_interval(secs => p_lease),
                        deliveries = c.deliveries + 1, session = p_session
                    FROM pick k
                    WHERE NOT k.fresh AND c.stream = p_stream AND c.grp = p_grp AND c.sequence = k.sequence
                    RETURNING c.sequence, c.deliveries
                )
                SELECT coalesce(array_agg(t.sequence ORDER BY t.sequence), '{}'),
                    coalesce(array_agg(t.deliveries ORDER BY t.sequence), '{}')
                INTO v_taken, v_counts
                FROM (
                    SELECT i.sequence, i.deliveries FROM inserted i WHERE i.member IS NOT NULL
                    UNION ALL SELECT t.sequence, t.deliveries FROM taken t
                ) t;
                RETURN QUERY
                    SELECT CASE WHEN ev.sequence IS NULL THEN 2 ELSE 1 END, t.s, NULL::bigint, t.d, ev.payload,
                        ev.published_at, ev.key
                    FROM unnest(v_taken, v_counts) AS t(s, d)
                    LEFT JOIN \(events) ev ON ev.stream = p_stream AND ev.sequence = t.s
                    ORDER BY t.s;
                DELETE FROM \(claims) c
                WHERE c.stream = p_stream AND c.grp = p_grp AND c.sequence = ANY(v_taken)
                    AND NOT EXISTS (SELECT 1 FROM \(events) ev WHERE ev.stream = p_stream AND ev.sequence = c.sequence);
                UPDATE \(schema.groupsTable) g SET handed = v_handed_now, acknowledged = coalesce(
                    (SELECT min(c.sequence) - 1 FROM \(claims) c WHERE c.stream = p_stream AND c.grp = p_grp),
                    v_handed_now)
                WHERE g.stream = p_stream AND g.grp = p_grp;
                SELECT count(*) INTO v_others FROM \(claims) c
                WHERE c.stream = p_stream AND c.grp = p_grp AND c.member IS NOT NULL AND c.member <> p_member;
                RETURN QUERY SELECT 0, v_deleted, v_others, NULL::integer, NULL::bytea, NULL::timestamptz,
                    NULL::text;
            END
            $round$
            """
    }
}
#endif
