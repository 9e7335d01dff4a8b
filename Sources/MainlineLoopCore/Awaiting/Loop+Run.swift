extension Loop {
    /// Runs `body` on the loop, on the main actor, and returns what it returned to the awaiting task (or throws what it
    /// threw).
    ///
    /// Callable from any task. The body is posted like ``SerialLoop/post(_:fileID:line:)`` — in order with the caller's
    /// other posts — and the caller suspends until it has run; the loop never blocks.
    ///
    /// ```swift
    /// // In a Hummingbird handler:
    /// let count = try await MainLoop.main.run { model.items.count }
    /// ```
    ///
    /// - Parameters:
    ///   - fileID: The caller's file: the body's site in snapshots, the flight recorder and stall reports (leave the
    ///     default).
    ///   - line: The caller's line (leave the default).
    ///   - body: The work to run on the loop.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw; ``LoopStopped`` if the loop has stopped, or stops before the body runs (the body
    ///   then never runs); `CancellationError` if the awaiting task is cancelled before the body starts (the body is
    ///   withdrawn and never runs). Once the body has started it runs to the end and its result is returned.
    public nonisolated(nonsending) func run<Result: Sendable>(
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable () throws -> Result
    ) async throws -> Result {
        let site = LoopSite(fileID: fileID, line: line)
        return try await _LoopRun<Result>.perform { runGuard in
            _ = post({ runGuard.run.runBody(body) }, from: site)
        }
    }
}
