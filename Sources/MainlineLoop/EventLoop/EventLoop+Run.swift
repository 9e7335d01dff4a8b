import MainlineLoopCore

extension EventLoop {
    /// Runs `body` on the loop's thread and returns what it returned to the awaiting task (or throws what it threw).
    ///
    /// Callable from any task. The body is posted like ``post(_:fileID:line:)`` — in order with the caller's other
    /// posts — and the caller suspends until it has run; the loop never blocks.
    ///
    /// - Parameters:
    ///   - fileID: The caller's file: the body's site (leave the default).
    ///   - line: The caller's line (leave the default).
    ///   - body: The work to run on the loop's thread.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw; `LoopStopped` if the loop has stopped, or stops before the body runs (the body
    ///   then never runs); `CancellationError` if the awaiting task is cancelled before the body starts (the body is
    ///   withdrawn and never runs).
    public nonisolated(nonsending) func run<Result: Sendable>(
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable () throws -> Result
    ) async throws -> Result {
        let site = LoopSite(fileID: fileID, line: line)
        return try await _LoopRun<Result>.perform { runGuard in
            _ = post({ runGuard.run.runBody(body) }, from: site)
        }
    }
}
