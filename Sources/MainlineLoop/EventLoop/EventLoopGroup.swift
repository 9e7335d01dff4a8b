import MainlineLoopCore

/// A fixed set of ``EventLoop``s, handed out round-robin: one loop per core for a server's connections.
///
/// All operations on `EventLoopGroup` are thread-safe.
///
/// The group starts its loops in its initializer and stops them all in ``stop()``. ``next()`` spreads work
/// across them; keep the loop it returns for everything that belongs together (a connection and its actor), so
/// that it stays on one thread.
///
/// ```swift
/// let group = EventLoopGroup(count: 4, name: "io")
/// for socket in acceptedSockets {
///     let connection = Connection(loop: group.next())   // an actor on one of the loops
///     Task { await connection.serve(socket) }
/// }
/// // at shutdown, after the connections are done:
/// group.stop()
/// await group.waitUntilStopped()
/// ```
public final class EventLoopGroup: Sendable {
    /// The loops, in the order ``next()`` hands them out.
    public let loops: [EventLoop]
    /// The index of the loop ``next()`` returns next (protected by its lock).
    private let nextIndex = _Locked(0)

    /// Creates `count` loops and starts their threads.
    ///
    /// - Parameters:
    ///   - count: How many loops; at least 1.
    ///   - name: The loops' name prefix: loop *i* is named `"<name>-<i>"` (its thread too, cut to 15 bytes).
    /// - Precondition: `count >= 1`.
    public init(count: Int, name: String = "mainline-loop") {
        precondition(count >= 1, "EventLoopGroup(count: \(count)) needs at least one loop")
        loops = (0..<count).map { EventLoop(name: "\(name)-\($0)") }
    }

    /// The next loop, round-robin.
    ///
    /// - Returns: One of ``loops``; successive calls cycle through them in order.
    public func next() -> EventLoop {
        let index = nextIndex.withLock { index in
            defer { index = (index + 1) % loops.count }
            return index
        }
        return loops[index]
    }

    /// Stops every loop (see ``EventLoop/stop()``). Idempotent; never blocks.
    public func stop() {
        for loop in loops { loop.stop() }
    }

    /// Suspends until every loop has stopped.
    public func waitUntilStopped() async {
        for loop in loops { await loop.waitUntilStopped() }
    }

    /// Stops every loop and blocks until all have stopped, for code that cannot `await`.
    ///
    /// - Precondition: Not called on one of the group's loops (see ``EventLoop/stopAndWait()``).
    public func stopAndWait() {
        stop()
        for loop in loops { loop.stopAndWait() }
    }
}
