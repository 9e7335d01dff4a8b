extension EventLoop {
    /// Runs `body` on the loop's thread and returns what it returned to the awaiting task (or throws what it threw).
    ///
    /// Callable from any task. The body is posted like ``post(_:)`` — in order with the caller's other posts — and the
    /// caller suspends until it has run; the loop never blocks.
    ///
    /// - Parameter body: The work to run on the loop's thread.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw; ``LoopStopped`` if the loop has stopped, or stops before the body runs (the body
    ///   then never runs); `CancellationError` if the awaiting task is cancelled before the body starts (the body is
    ///   withdrawn and never runs).
    public nonisolated(nonsending) func run<Result: Sendable>(
        _ body: @escaping @Sendable () throws -> Result
    ) async throws -> Result {
        try await _LoopRun<Result>.perform { runGuard in
            _ = post { runGuard.run.runBody(body) }
        }
    }
}
