import Foundation

/// Runs blocking or long CPU-bound `work` on a thread of its own and returns its result, so that the concurrency pool
/// (as many threads as cores: two on the project's machines) stays free for the other tests' tasks. A test that blocks
/// a pool thread — a blocking read, or seconds of computation (ten times longer under ThreadSanitizer) — starves every
/// task of the process meanwhile.
///
/// Thread-safe; call it from any task.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
        Thread.detachNewThread {
            do { done.resume(returning: try work()) } catch { done.resume(throwing: error) }
        }
    }
}
