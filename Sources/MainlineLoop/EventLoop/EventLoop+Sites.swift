import MainlineLoopCore

/// The thread-safe calls as users write them on an `EventLoop`: each passes the caller's site (`#fileID`, `#line`) to
/// the member that takes one. (`SerialLoop`'s forms of the `schedule` calls are main-actor; these are not.)
///
/// All of them are thread-safe.
extension EventLoop {
    /// Runs `body` once on the loop's thread when `delay` has passed. See ``schedule(after:from:_:)``.
    ///
    /// - Parameters:
    ///   - delay: How long from ``now``.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling.
    @discardableResult
    public func schedule(
        after delay: Duration,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable () -> Void
    ) -> Scheduled {
        schedule(after: delay, from: LoopSite(fileID: fileID, line: line), body)
    }

    /// Runs `body` once on the loop's thread at `deadline`. See ``schedule(at:from:_:)``.
    ///
    /// - Parameters:
    ///   - deadline: When to fire.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling.
    @discardableResult
    public func schedule(
        at deadline: LoopInstant,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable () -> Void
    ) -> Scheduled {
        schedule(at: deadline, from: LoopSite(fileID: fileID, line: line), body)
    }

    /// Runs `body` on the loop's thread every `interval`. See ``scheduleRepeating(every:from:_:)``.
    ///
    /// - Parameters:
    ///   - interval: The period; must be positive.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    ///   - body: The work to run; it receives the task.
    /// - Returns: The task, for cancelling.
    @discardableResult
    public func scheduleRepeating(
        every interval: Duration,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (Scheduled) -> Void
    ) -> Scheduled {
        scheduleRepeating(every: interval, from: LoopSite(fileID: fileID, line: line), body)
    }

    /// Runs `body` once on the loop's thread when an iteration has nothing else pending. See ``whenIdle(_:from:)``.
    ///
    /// - Parameters:
    ///   - body: The work to run when the loop is idle.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    /// - Returns: The registration, for cancelling.
    @discardableResult
    public func whenIdle(
        _ body: @escaping @Sendable () -> Void,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) -> IdleRegistration {
        whenIdle(body, from: LoopSite(fileID: fileID, line: line))
    }
}
