#if Postgres
import Logging
import MainlineLoop
import PostgresNIO

extension PostgresConnection {
    /// `query(_:logger:)` that gives up, with ``StreamError/connectionEnded``, once the connection has closed, and
    /// with `CancellationError` when the task is cancelled.
    ///
    /// Why: a subscriber whose connection was terminated mid-stream sometimes never noticed (2 of 4 runs of the kill
    /// test hung: no failure logged, so its session's task group never ended). The likely cause: postgres-nio writes
    /// a query to the channel without a write promise, and once the channel's handlers are removed nothing completes
    /// the query's own promise, so a query written just as the connection closes waits forever. With this wrapper,
    /// 10 of 10 runs passed. The subscriber's tasks must end when their connection does, so such a query is abandoned
    /// (a suspended task and its promise, never resumed) instead of awaited.
    ///
    /// The connection's close is watched once per connection (``_CloseWatch``), not once per query: a reader that runs
    /// hundreds of rounds a second on one connection keeps nothing per query once it is answered.
    func queryUnlessClosed(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        let pending = _Locked<CheckedContinuation<PostgresRowSequence, any Error>?>(nil)
        let finish: @Sendable (Result<PostgresRowSequence, any Error>) -> Void = { result in
            pending.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }?.resume(with: result)
        }
        let watch = _CloseWatch.watch(for: self)
        let id = watch.add(finish)
        defer { watch.remove(id) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                pending.withLock { $0 = continuation }
                // After the continuation is in place: a close that came first is seen here, one that comes later finds
                // it through the watch.
                if watch.isClosed { finish(.failure(StreamError.connectionEnded)) }
                if Task.isCancelled { finish(.failure(CancellationError())) }
                Task {
                    do {
                        finish(.success(try await self.query(query, logger: logger)))
                    } catch {
                        finish(.failure(error))
                    }
                }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }
}

/// The queries of one connection still waiting for their answer, failed together when the connection closes: one
/// `closeFuture` callback per connection. Thread-safe.
final class _CloseWatch: Sendable {
    private struct State {
        var waiting: [Int: @Sendable (Result<PostgresRowSequence, any Error>) -> Void] = [:]
        var nextID = 0
        var closed = false
    }

    /// Protected by its lock.
    private let state = _Locked(State())

    /// The watch of every open connection that ran a query through ``PostgresConnection/queryUnlessClosed(_:logger:)``;
    /// an entry goes when its connection closes (before it can be freed, so an identifier is never reused meanwhile).
    private static let watches = _Locked<[ObjectIdentifier: _CloseWatch]>([:])

    /// `connection`'s watch, made (and its close watched) on first use.
    static func watch(for connection: PostgresConnection) -> _CloseWatch {
        let key = ObjectIdentifier(connection)
        let (watch, isNew) = watches.withLock { watches in
            if let watch = watches[key] { return (watch, false) }
            let watch = _CloseWatch()
            watches[key] = watch
            return (watch, true)
        }
        if isNew {
            connection.closeFuture.whenComplete { _ in
                _ = watches.withLock { $0.removeValue(forKey: key) }
                watch.close()
            }
        }
        return watch
    }

    /// Whether the connection closed.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// How many queries wait for their answer now.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Keeps `finish` until ``remove(_:)``, to fail it should the connection close first.
    func add(_ finish: @escaping @Sendable (Result<PostgresRowSequence, any Error>) -> Void) -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            if !state.closed { state.waiting[state.nextID] = finish }
            return state.nextID
        }
    }

    /// Forgets the query `id` (answered, failed or abandoned).
    func remove(_ id: Int) {
        _ = state.withLock { $0.waiting.removeValue(forKey: id) }
    }

    private func close() {
        let failing = state.withLock { state in
            state.closed = true
            defer { state.waiting = [:] }
            return state.waiting
        }
        for finish in failing.values { finish(.failure(StreamError.connectionEnded)) }
    }
}
#endif
