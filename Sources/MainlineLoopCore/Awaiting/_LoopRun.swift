/// A task waiting for its loop to do one thing — a `run(_:)` body, or a `LoopClock` sleep's timer — and who gets to
/// resume it: the body, a cancellation that withdraws it before it starts, or the loop refusing it or releasing it
/// unrun.
///
/// All operations on `_LoopRun` are thread-safe: its state is protected by `lock`, and the continuation is resumed
/// outside the lock, exactly once.
package final class _LoopRun<Result: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `state` and `continuation` are protected by `lock`.
    private enum State {
        /// Posted (or about to be), not started.
        case waiting
        /// The loop started the body: only its result resumes the task now.
        case started
        /// Resumed (or about to be, outside the lock): by a cancellation, a refusal, or the body's result.
        case finished
    }

    private let lock = _Lock()
    private var state = State.waiting
    private var continuation: CheckedContinuation<Result, any Error>?
    /// The timer that will start the body (a clock sleep's), cancelled when the run is withdrawn.
    private var timer: (any ScheduledWork)?

    /// Awaits one run: `submit` hands the loop a job (a post, a timer) that holds the guard and runs the body through
    /// ``runBody(_:)``. Cancelling the awaiting task withdraws a body that has not started.
    ///
    /// Runs on `isolation`, the caller's actor, and so does `submit`: a main-actor caller does not hop to the global
    /// executor and back. (An explicit isolated parameter rather than `nonisolated(nonsending)`: the closures below
    /// capture it, which keeps them on it; in a `nonsending` function they were inferred `@concurrent` and hopped.)
    package static func perform(
        isolation: isolated (any Actor)? = #isolation,
        _ submit: (_LoopRunGuard<Result>) -> Void
    ) async throws -> Result {
        let run = _LoopRun<Result>()
        return try await withTaskCancellationHandler(
            operation: {
                _ = isolation
                return try await withCheckedThrowingContinuation(isolation: isolation) {
                    (continuation: CheckedContinuation<Result, any Error>) in
                    // Already cancelled: withdrawn before it was posted.
                    guard run.install(continuation) else { return continuation.resume(throwing: CancellationError()) }
                    // A refused job is released at once, and its guard refuses the run: the task throws `LoopStopped`.
                    submit(_LoopRunGuard(run))
                }
            },
            onCancel: { run.withdraw() },
            isolation: isolation
        )
    }

    /// Runs `body` unless the run was withdrawn, and resumes the task with what it returned or threw. On the loop.
    package func runBody(_ body: () throws -> Result) {
        let started = lock.withLock {
            guard case .waiting = state else { return false }
            state = .started
            return true
        }
        guard started else { return }
        let result = Swift.Result { try body() }
        take(if: .started)?.resume(with: result)
    }

    /// The loop refused the body or released it unrun (it stopped): the task throws ``LoopStopped``.
    package func refuse() {
        take(if: .waiting)?.resume(throwing: LoopStopped())
    }

    /// Hands over the awaiting task's continuation. Returns `false` when the run was already withdrawn.
    private func install(_ continuation: CheckedContinuation<Result, any Error>) -> Bool {
        lock.withLock {
            guard case .waiting = state else { return false }
            self.continuation = continuation
            return true
        }
    }

    /// The task was cancelled: a body that has not started never will, and the task throws `CancellationError`.
    private func withdraw() {
        let (continuation, timer) = lock.withLock {
            () -> (CheckedContinuation<Result, any Error>?, (any ScheduledWork)?) in
            guard case .waiting = state else { return (nil, nil) }
            state = .finished
            defer { self.continuation = nil; self.timer = nil }
            return (self.continuation, self.timer)
        }
        timer?.cancel()
        continuation?.resume(throwing: CancellationError())
    }

    /// Attaches the timer that will start the body, so that a withdrawal cancels it; cancels it at once if the run
    /// was already withdrawn or refused. Thread-safe.
    package func attach(_ timer: any ScheduledWork) {
        let keep = lock.withLock {
            guard case .waiting = state else { return false }
            self.timer = timer
            return true
        }
        if !keep { timer.cancel() }
    }

    /// Moves to `finished` from `expected`, handing back the continuation to resume (if one is installed).
    private func take(if expected: State) -> CheckedContinuation<Result, any Error>? {
        lock.withLock {
            guard state == expected else { return nil }
            state = .finished
            defer { continuation = nil; timer = nil }
            return continuation
        }
    }
}

/// What a posted `run(_:)` job holds. Released without having run — the loop refused the post, or stopped and released
/// it at a drain deadline — it refuses the run, so the awaiting task throws ``LoopStopped`` instead of waiting forever.
///
/// All operations on `_LoopRunGuard` are thread-safe.
package final class _LoopRunGuard<Result: Sendable>: Sendable {
    package let run: _LoopRun<Result>

    package init(_ run: _LoopRun<Result>) { self.run = run }

    deinit { run.refuse() }
}
