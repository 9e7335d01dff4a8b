/// The calls as users write them: each passes the caller's site (`#fileID`, `#line`) to the requirement that takes one,
/// through default arguments — no allocation, nothing to write at the call site.
///
/// Thread-safety is the requirement's: `post`, `tryPost` and `whenIdle` are thread-safe; the `schedule` calls must be
/// made on the main actor through this protocol (an `EventLoop`'s own are thread-safe).
extension SerialLoop {
    /// Runs `body` on the loop, soon; the loop keeps the caller's site with it. See ``post(_:from:)``.
    ///
    /// Thread-safe.
    ///
    /// - Parameters:
    ///   - body: The work to run on the loop.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    /// - Returns: `true` if `body` will run; `false` if the loop has stopped or is full.
    @inlinable @discardableResult
    public func post(_ body: Job, fileID: StaticString = #fileID, line: UInt = #line) -> Bool {
        post(body, from: LoopSite(fileID: fileID, line: line))
    }

    /// Runs `body` on the loop, soon — or says why it will not. See ``tryPost(_:from:)``.
    ///
    /// Thread-safe.
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    /// - Returns: What became of `body`.
    @inlinable
    public func tryPost(_ body: Job, fileID: StaticString = #fileID, line: UInt = #line) -> PostResult {
        tryPost(body, from: LoopSite(fileID: fileID, line: line))
    }

    /// Runs `body` once, when an iteration has nothing else pending. See ``whenIdle(_:from:)``.
    ///
    /// Thread-safe.
    ///
    /// - Parameters:
    ///   - body: The work to run when the loop is idle.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    /// - Returns: The registration, for cancelling.
    @inlinable @discardableResult
    public func whenIdle(_ body: Job, fileID: StaticString = #fileID, line: UInt = #line) -> IdleRegistration {
        whenIdle(body, from: LoopSite(fileID: fileID, line: line))
    }

    /// Runs `body` once, when `delay` has passed. See ``schedule(after:from:_:)``.
    ///
    /// Must be called on the main actor through this protocol.
    ///
    /// - Parameters:
    ///   - delay: How long from ``now``.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    ///   - body: The work to run.
    /// - Returns: The handle, for cancelling.
    @inlinable @MainActor @discardableResult
    public func schedule(
        after delay: Duration,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: TimerJob
    ) -> Scheduled {
        schedule(after: delay, from: LoopSite(fileID: fileID, line: line), body)
    }

    /// Runs `body` once, at `deadline`. See ``schedule(at:from:_:)``.
    ///
    /// Must be called on the main actor through this protocol.
    ///
    /// - Parameters:
    ///   - deadline: When to fire.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    ///   - body: The work to run.
    /// - Returns: The handle, for cancelling.
    @inlinable @MainActor @discardableResult
    public func schedule(
        at deadline: LoopInstant,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: TimerJob
    ) -> Scheduled {
        schedule(at: deadline, from: LoopSite(fileID: fileID, line: line), body)
    }

    /// Runs `body` every `interval`, at a fixed rate. See ``scheduleRepeating(every:from:_:)``.
    ///
    /// Must be called on the main actor through this protocol.
    ///
    /// - Parameters:
    ///   - interval: The period; must be positive.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    ///   - body: The work to run; it receives the handle.
    /// - Returns: The handle, for cancelling.
    @inlinable @MainActor @discardableResult
    public func scheduleRepeating(
        every interval: Duration,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: RepeatingJob
    ) -> Scheduled {
        scheduleRepeating(every: interval, from: LoopSite(fileID: fileID, line: line), body)
    }
}
