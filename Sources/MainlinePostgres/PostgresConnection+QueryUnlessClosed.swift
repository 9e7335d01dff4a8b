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
    func queryUnlessClosed(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        let pending = _Locked<CheckedContinuation<PostgresRowSequence, any Error>?>(nil)
        let finish: @Sendable (Result<PostgresRowSequence, any Error>) -> Void = { result in
            pending.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }?.resume(with: result)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                pending.withLock { $0 = continuation }
                if Task.isCancelled { finish(.failure(CancellationError())) }
                Task {
                    do {
                        finish(.success(try await self.query(query, logger: logger)))
                    } catch {
                        finish(.failure(error))
                    }
                }
                self.closeFuture.whenComplete { _ in finish(.failure(StreamError.connectionEnded)) }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }
}
#endif
