import MainlineLoopCore

extension EventLoop {
    /// Runs `body` once, on the loop's thread, as soon as an iteration has nothing else pending: no posted closure or
    /// executor job waiting, no timer due now — right before the loop would block. `Loop.whenIdle(_:fileID:line:)` for a
    /// secondary loop.
    ///
    /// Thread-safe. Bodies run in registration order, in libuv's prepare phase; what a body posts or schedules runs
    /// in the next iteration, and the loop does not block while it is pending. One-shot: for repeating idle work,
    /// register again from the body. A registration made on the loop's thread never wakes the loop, so such a body
    /// runs at most once per iteration and a loop with nothing else to do blocks instead of spinning; a registration
    /// from any other thread wakes it. Bodies still pending when the loop shuts down are released unrun; registering
    /// on a stopped loop returns a spent registration.
    ///
    /// ```swift
    /// connections.forEach { connection in loop.post { connection.read() } }
    /// loop.whenIdle { metrics.flush() }   // after every read above has run
    /// ```
    ///
    /// - Parameters:
    ///   - body: The work to run when the loop is idle.
    ///   - site: Where it was registered (`whenIdle { … }` passes the caller's).
    /// - Returns: The registration, for cancelling (from any thread).
    /// - Complexity: O(1) to register; O(n) in the pending idle bodies to cancel. An iteration with no idle body
    ///   registered pays one atomic load; posts pay nothing.
    @discardableResult
    public func whenIdle(_ body: @escaping @Sendable () -> Void, from site: LoopSite) -> IdleRegistration {
        driver.whenIdle(serviceContext.carry(job: body), site: site, fromLoop: inEventLoop)
    }
}
