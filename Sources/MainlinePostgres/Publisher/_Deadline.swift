#if Postgres
import MainlineLoop

/// Waits for work done elsewhere (a statement through the pool) no longer than a deadline.
///
/// All operations on `_Deadline` are thread-safe. The pool waits for a connection as long as its circuit breaker lets
/// it (a minute), and a query on a frozen server longer still: too long for a caller with someone waiting for it.
enum _Deadline {
    /// Runs `work` in a task of its own and returns what it returns, or throws `timedOut` once `timeout` passed. The
    /// caller is answered at the deadline even if `work` does not end then (a query on a frozen server ends when its
    /// connection does). `work` is cancelled at the deadline only if it has not called the function it is given yet,
    /// which it calls once it holds a connection: a pool still waiting for a connection gives up the request, but a
    /// statement is never cancelled half-way (that could leave the connection in a transaction).
    ///
    /// Use it for reads only: a write cancelled this way may still commit.
    ///
    /// - Throws: What `work` throws, or `timedOut`.
    static func run<T: Sendable>(
        within timeout: Duration,
        timedOut: StreamError,
        _ work: @escaping @Sendable (_ leased: @escaping @Sendable () -> Void) async throws -> T
    ) async throws -> T {
        let answer = _Locked<CheckedContinuation<T, any Error>?>(nil)
        let resume: @Sendable (Result<T, any Error>) -> Void = { result in
            answer.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }?.resume(with: result)
        }
        // The work's task and the timer's, for whichever ends first to cancel the other.
        let worker = _Locked<Task<Void, Never>?>(nil)
        let timer = _Locked<Task<Void, Never>?>(nil)
        let leased = _Locked(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.withLock { $0 = continuation }
                worker.withLock { worker in
                    worker = Task {
                        do {
                            resume(.success(try await work { leased.withLock { $0 = true } }))
                        } catch {
                            resume(.failure(error))
                        }
                        timer.withLock { $0 }?.cancel()
                    }
                }
                timer.withLock { timer in
                    timer = Task {
                        guard (try? await Task.sleep(for: timeout)) != nil else { return }
                        resume(.failure(timedOut))
                        if !leased.withLock({ $0 }) { worker.withLock { $0 }?.cancel() }
                    }
                }
            }
        } onCancel: {
            resume(.failure(CancellationError()))
            if !leased.withLock({ $0 }) { worker.withLock { $0 }?.cancel() }
        }
    }
}
#endif
