import Logging
import PostgresNIO
import StreamWire

/// A worker process of the skip-locked peer: the queue users write by hand. One connection, looping
///
///     BEGIN
///     SELECT id, payload FROM <jobs> ORDER BY id LIMIT k FOR UPDATE SKIP LOCKED
///     -- handle: each payload parsed into its number, and one line printed (HandledBatch)
///     DELETE FROM <jobs> WHERE id = ANY(<the ids>)
///     COMMIT
///
/// At least once, as the group: a worker that dies before `COMMIT` has its transaction rolled back by the server, and
/// its rows become visible to the other worker's next `SELECT`. An empty `SELECT` (the queue drained, or every row
/// locked) waits 1 ms and tries again: the polling a hand-rolled queue does without `LISTEN`. It runs until the
/// measuring process kills it; with `--stall-after`, it stops inside the transaction of the batch that reached that
/// many handled events (its rows locked, nothing committed), and waits to be killed.
///
/// Must be used on the main actor (it is one sequential loop).
@MainActor
struct SkipLockedWorker {
    /// Where, which table, and `k`.
    var settings: MemberSettings

    /// Connects, prints `ready`, waits for the go, then loops; returns only if a statement fails.
    ///
    /// - Throws: What connecting or a statement throws.
    func run() async throws {
        let logger = Logger(label: "stream-latency.skip-locked")
        let connection = try await PostgresConnection.connect(
            configuration: settings.configuration,
            id: 1,
            logger: logger
        )
        emitLine("ready")
        await waitForGo()
        do {
            try await loop(on: connection, logger: logger)
        } catch {
            try? await connection.close()  // before it is freed: an unclosed connection traps in its deinit
            throw error
        }
    }

    /// The worker's loop, on `connection`; returns only by throwing.
    private func loop(on connection: PostgresConnection, logger: Logger) async throws {
        let table = settings.target
        let limit = settings.batch
        var handledCount = 0
        while true {
            _ = try await connection.query("BEGIN", logger: logger)
            let rows = try await connection.query(
                "SELECT id, payload FROM \(unescaped: table) ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED",
                logger: logger
            )
            var ids: [Int64] = []
            var payloads: [ByteBuffer] = []
            for try await (id, payload) in rows.decode((Int64, ByteBuffer).self) {
                ids.append(id)
                payloads.append(payload)
            }
            guard !ids.isEmpty else {
                _ = try await connection.query("COMMIT", logger: logger)
                try await Task.sleep(for: .milliseconds(1))
                continue
            }
            var batch = HandledBatch(handledAt: monotonicNanoseconds())
            for payload in payloads { batch.append(Int(String(buffer: payload)) ?? -1) }
            batch.emit()
            handledCount += ids.count
            if settings.stallAfter > 0, handledCount >= settings.stallAfter {
                emitLine("stalled")
                try await Task.sleep(for: .seconds(3_600))
            }
            _ = try await connection.query("DELETE FROM \(unescaped: table) WHERE id = ANY(\(ids))", logger: logger)
            _ = try await connection.query("COMMIT", logger: logger)
        }
    }
}
