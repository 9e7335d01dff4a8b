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
/// 3. Picks, in sequence order, up to the number wanted among the events in batches nobody holds, in batches of
///    members whose lease ran out or whose session is gone, and the new events — skipping every event whose key an
///    earlier event held by another live member still has. The picked events become one batch of this member's
///    (their delivery counts one higher); the batches they came from are replaced by one free batch of what was not
///    picked, together with the new events not picked. The picked events are returned with their payloads (a picked
///    event whose payload retention deleted is reported as gone: the member acknowledges it with its next round).
/// 4. Moves the group's `handed` and `acknowledged`.
///
/// Claims are kept per batch (`<prefix>_claim_batches`: one row per claim of a member, its sequences, keys and
/// delivery counts in arrays), so a round writes a row or two, not a row per event; acknowledging removes sequences
/// from the member's batches and deletes a batch once it is empty.
///
/// Rows returned, `(r_kind, r_sequence, r_other, r_deliveries, r_payload, r_published_at, r_key)` by kind:
/// - `1` an event claimed: its sequence, delivery count, payload, publication time and key;
/// - `2` a claim whose event was gone (deleted by retention): its sequence;
/// - `3` a gap: `r_sequence` the last event handed in before it, `r_other` the last one gone;
/// - `4` the group's row is missing (its tables were recreated): the member must join again;
/// - `5` after a claim: `r_sequence` the stream's head, `r_other` the group's position (for the inspector);
/// - `0` last, always: `r_sequence` the acknowledgements deleted, `r_other` 1 when other members hold claims, else 0.
enum GroupRoundFunction {
    /// The function's name for `schema`.
    static func name(in schema: StreamSchema) -> String { "\(schema.tablePrefix)_group_round_v1" }

    /// `CREATE OR REPLACE FUNCTION` for `schema` (its identifiers were validated, so writing them into the text is
    /// safe).
    static func definition(in schema: StreamSchema) -> String {
        let batches = schema.claimBatchesTable
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
                v_acknowledged_keys text[];
                v_handed bigint;
                v_others boolean := false;
                v_live bigint[] := '{}';
                v_sequences bigint[];
                v_keys text[];
                v_payloads bytea[];
                v_times timestamptz[];
                v_head bigint;
                v_handed_now bigint;
                v_taken bigint[];
                v_counts integer[];
                v_position bigint;
            BEGIN
                IF cardinality(p_acknowledged) > 0 THEN
                    WITH mine AS MATERIALIZED (
                        SELECT b.id, u.s, u.k, u.d, u.s = ANY(p_acknowledged) AS done
                        FROM \(batches) b, unnest(b.sequences, b.keys, b.deliveries) AS u(s, k, d)
                        WHERE b.stream = p_stream AND b.grp = p_grp AND b.member = p_member
                            AND b.sequences && p_acknowledged
                    ), kept AS MATERIALIZED (
                        SELECT m.id, array_agg(m.s ORDER BY m.s) AS s, array_agg(m.k ORDER BY m.s) AS k,
                            array_agg(m.d ORDER BY m.s) AS d
                        FROM mine m WHERE NOT m.done GROUP BY m.id
                    ), emptied AS (
                        DELETE FROM \(batches) b
                        WHERE b.stream = p_stream AND b.grp = p_grp AND b.id IN (SELECT m.id FROM mine m)
                            AND b.id NOT IN (SELECT kept.id FROM kept)
                    ), shrunk AS (
                        UPDATE \(batches) b SET sequences = kept.s, keys = kept.k, deliveries = kept.d, first = kept.s[1]
                        FROM kept WHERE b.stream = p_stream AND b.grp = p_grp AND b.id = kept.id
                    )
                    SELECT count(*) FILTER (WHERE m.done),
                        coalesce(array_agg(DISTINCT m.k) FILTER (WHERE m.done AND m.k IS NOT NULL), '{}')
                    INTO v_deleted, v_acknowledged_keys FROM mine m;
                    IF cardinality(v_acknowledged_keys) > 0 AND EXISTS (
                        SELECT 1 FROM \(batches) w
                        WHERE w.stream = p_stream AND w.grp = p_grp AND w.member IS NULL
                            AND w.keys && v_acknowledged_keys
                    ) THEN
                        PERFORM pg_notify('\(schema.channel)', '0 ' || p_stream);
                    END IF;
                END IF;
                IF cardinality(p_renew) > 0 THEN
                    UPDATE \(batches) b SET lease_until = now() + make_interval(secs => p_lease), session = p_session
                    WHERE b.stream = p_stream AND b.grp = p_grp AND b.member = p_member AND b.sequences && p_renew;
                END IF;
                IF p_want <= 0 THEN
                    RETURN QUERY SELECT 0, v_deleted, 0::bigint, NULL::integer, NULL::bytea, NULL::timestamptz,
                        NULL::text;
                    RETURN;
                END IF;
                SELECT g.handed INTO v_handed FROM \(schema.groupsTable) g
                WHERE g.stream = p_stream AND g.grp = p_grp FOR UPDATE;
                IF NOT FOUND THEN
                    RETURN QUERY SELECT 4, NULL::bigint, NULL::bigint, NULL::integer, NULL::bytea,
                        NULL::timestamptz, NULL::text;
                    RETURN QUERY SELECT 0, v_deleted, 0::bigint, NULL::integer, NULL::bytea, NULL::timestamptz,
                        NULL::text;
                    RETURN;
                END IF;
                v_others := EXISTS (
                    SELECT 1 FROM \(batches) b
                    WHERE b.stream = p_stream AND b.grp = p_grp AND b.member IS NOT NULL AND b.member <> p_member
                );
                IF v_others THEN
                    v_live := ARRAY(
                        SELECT l.objid::bigint FROM pg_locks l
                        WHERE l.locktype = 'advisory' AND l.classid::bigint = p_namespace AND l.objsubid = 2
                            AND l.granted
                    );
                END IF;
                SELECT coalesce(array_agg(e.sequence ORDER BY e.sequence), '{}'),
                    coalesce(array_agg(e.key ORDER BY e.sequence), '{}'),
                    coalesce(array_agg(e.payload ORDER BY e.sequence), '{}'),
                    coalesce(array_agg(e.published_at ORDER BY e.sequence), '{}'),
                    coalesce((SELECT h.last_sequence FROM \(schema.headsTable) h WHERE h.stream = p_stream), 0)
                INTO v_sequences, v_keys, v_payloads, v_times, v_head
                FROM (
                    SELECT ev.sequence, ev.key, ev.payload, ev.published_at FROM \(events) ev
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
                WITH held AS MATERIALIZED (
                    SELECT b.id, b.sequences, b.keys FROM \(batches) b
                    WHERE b.stream = p_stream AND b.grp = p_grp AND b.member IS NOT NULL AND b.member <> p_member
                        AND b.lease_until >= now() AND (b.session IS NULL OR b.session = ANY(v_live))
                ), blocked AS MATERIALIZED (
                    SELECT u.k AS key, min(u.s) AS first FROM held h, unnest(h.sequences, h.keys) AS u(s, k)
                    WHERE u.k IS NOT NULL GROUP BY u.k
                ), candidates AS MATERIALIZED (
                    SELECT u.s, u.k, u.d, b.id AS source
                    FROM \(batches) b, unnest(b.sequences, b.keys, b.deliveries) AS u(s, k, d)
                    WHERE b.stream = p_stream AND b.grp = p_grp AND (b.member IS NULL
                        OR (b.member <> p_member AND b.id NOT IN (SELECT h.id FROM held h)))
                    UNION ALL
                    SELECT n.s, n.k, 0, NULL::bigint FROM unnest(v_sequences, v_keys) AS n(s, k)
                ), pick AS MATERIALIZED (
                    SELECT c.s, c.k, c.d, c.source FROM candidates c LEFT JOIN blocked x ON x.key = c.k
                    WHERE x.key IS NULL OR c.s < x.first
                    ORDER BY c.s LIMIT p_want
                ), rest AS MATERIALIZED (
                    SELECT c.s, c.k, c.d FROM candidates c
                    WHERE NOT EXISTS (SELECT 1 FROM pick p WHERE p.s = c.s)
                        AND (c.source IS NULL OR c.source IN (SELECT p.source FROM pick p))
                ), emptied AS (
                    DELETE FROM \(batches) b
                    WHERE b.stream = p_stream AND b.grp = p_grp AND b.id IN (SELECT p.source FROM pick p)
                ), mine AS (
                    INSERT INTO \(batches) (stream, grp, member, session, lease_until, sequences, keys, deliveries, first)
                    SELECT p_stream, p_grp, p_member, p_session, now() + make_interval(secs => p_lease),
                        array_agg(p.s ORDER BY p.s), array_agg(p.k ORDER BY p.s), array_agg(p.d + 1 ORDER BY p.s),
                        min(p.s)
                    FROM pick p HAVING count(*) > 0
                ), freed AS (
                    INSERT INTO \(batches) (stream, grp, member, session, lease_until, sequences, keys, deliveries, first)
                    SELECT p_stream, p_grp, NULL, NULL, NULL, array_agg(r.s ORDER BY r.s), array_agg(r.k ORDER BY r.s),
                        array_agg(r.d ORDER BY r.s), min(r.s)
                    FROM rest r HAVING count(*) > 0
                )
                SELECT coalesce(array_agg(p.s ORDER BY p.s), '{}'), coalesce(array_agg(p.d + 1 ORDER BY p.s), '{}')
                INTO v_taken, v_counts FROM pick p;
                -- New events come with the payloads read above; only events taken over are read again.
                RETURN QUERY
                    SELECT CASE WHEN a.payload IS NULL THEN 2 ELSE 1 END, a.s, NULL::bigint, a.d, a.payload,
                        a.published_at, a.key
                    FROM (
                        SELECT t.s, t.d, f.payload, f.published_at, f.key
                        FROM unnest(v_taken, v_counts) AS t(s, d)
                        JOIN unnest(v_sequences, v_keys, v_payloads, v_times) AS f(s, key, payload, published_at)
                            ON f.s = t.s
                        UNION ALL
                        SELECT t.s, t.d, ev.payload, ev.published_at, ev.key
                        FROM unnest(v_taken, v_counts) AS t(s, d)
                        LEFT JOIN \(events) ev ON ev.stream = p_stream AND ev.sequence = t.s
                        WHERE NOT t.s = ANY(v_sequences)
                    ) a
                    ORDER BY a.s;
                UPDATE \(schema.groupsTable) g SET handed = v_handed_now, acknowledged = coalesce(
                    (SELECT min(b.first) - 1 FROM \(batches) b WHERE b.stream = p_stream AND b.grp = p_grp),
                    v_handed_now)
                WHERE g.stream = p_stream AND g.grp = p_grp
                RETURNING g.acknowledged INTO v_position;
                RETURN QUERY SELECT 5, v_head, v_position, NULL::integer, NULL::bytea, NULL::timestamptz, NULL::text;
                RETURN QUERY SELECT 0, v_deleted, CASE WHEN v_others THEN 1::bigint ELSE 0::bigint END,
                    NULL::integer, NULL::bytea, NULL::timestamptz, NULL::text;
            END
            $round$
            """
    }
}
#endif
