import Mainline

/// Waits for work done elsewhere (a statement through the pool) no longer than a deadline, measured by a main-loop
/// timer.
///
/// Must be used on the main actor. The pool waits for a connection as long as its circuit breaker lets it (a minute):
/// too long for a client waiting for its `PUB`'s answer, and its later commands waiting behind it.
enum AnswerDeadline {
    /// The work did not end within the deadline: it was cancelled, but a statement the database had already received
    /// may still take effect.
    ///
    /// All operations on `NoAnswer` are thread-safe (it is a value).
    struct NoAnswer: Error, CustomStringConvertible {
        /// The deadline that passed.
        var deadline: Duration
        var description: String {
            "no answer from the database within \(deadline) (given up; it may still take effect if the database got it)"
        }
    }

    /// Runs `work` in a task of its own and returns what it returns, or cancels it and throws ``NoAnswer`` once
    /// `deadline` passed (a pool still waiting for a connection then gives up the request).
    ///
    /// - Throws: What `work` throws, or ``NoAnswer``.
    @MainActor
    static func run<T: Sendable>(
        within deadline: Duration,
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let answer = Answer(continuation)
            let task = Task { @MainActor in
                let result: Result<T, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                answer.resume(with: result)
            }
            let timer = MainLoop.main.schedule(after: deadline, label: "pubsub: database deadline") {
                answer.resume(with: .failure(NoAnswer(deadline: deadline)))
                task.cancel()
            }
            answer.timer = timer
        }
    }

    /// Resumes its continuation once, with whichever comes first. Must be used on the main actor.
    @MainActor
    private final class Answer<T: Sendable> {
        private var continuation: CheckedContinuation<T, any Error>?
        /// The deadline's timer, cancelled by the first answer.
        var timer: ScheduledTask?

        init(_ continuation: CheckedContinuation<T, any Error>) {
            self.continuation = continuation
        }

        func resume(with result: Result<T, any Error>) {
            continuation?.resume(with: result)
            continuation = nil
            timer?.cancel()
            timer = nil
        }
    }
}
