import MainlineLoopCore

/// Runs `body` as a declared escape from virtual time: inside it, during an exploration
/// (`explore(seeds:strategy:checksDeterminism:sourceLocation:_:)`), reading or sleeping on a real clock and posting to
/// a test loop from a thread it did not start are not reported as failures of the run.
///
/// Callable from any thread. On a thread the test started itself, wrap the thread's post in it:
///
/// ```swift
/// Thread.detachNewThread {
///     outsideVirtualTime("the fixture's worker posts from its own thread") { loop.post { received += 1 } }
/// }
/// ```
///
/// What `body` does still happens outside the schedule's control: a run that depends on it may not replay exactly.
///
/// - Parameters:
///   - reason: Why the code leaves virtual time, for the reader.
///   - body: The code that may.
/// - Returns: What `body` returned.
@discardableResult
public func outsideVirtualTime<R>(_ reason: String, _ body: () throws -> R) rethrows -> R {
    try _TaskLane.$allowance.withValue(reason, operation: body)
}

/// Runs the asynchronous `body` as a declared escape from virtual time: inside it, during an exploration, reading or
/// sleeping on a real clock, posting from another thread, and waiting on something outside the run — real I/O, a
/// thread — are not reported as failures of the run.
///
/// Call it from the task that waits:
///
/// ```swift
/// let rows = try await outsideVirtualTime("reads the real database") { try await database.query(sql) }
/// ```
///
/// - Parameters:
///   - reason: Why the code leaves virtual time, for the reader.
///   - isolation: The actor `body` runs on; leave the default (the caller's).
///   - body: The code that may.
/// - Returns: What `body` returned.
@discardableResult
public func outsideVirtualTime<R>(
    _ reason: String,
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> R
) async rethrows -> R {
    let lane = _VirtualTimeTasks.laneOfCurrentCode()?.lane
    let task = _VirtualTimeTasks.currentTaskID
    if let lane, let task { lane.allow(taskID: task, entering: true) }
    defer { if let lane, let task { lane.allow(taskID: task, entering: false) } }
    return try await _TaskLane.$allowance.withValue(reason, operation: body, isolation: isolation)
}
