/// Work registered with ``SerialLoop/whenIdle(_:fileID:line:)`` (or `EventLoop.whenIdle(_:fileID:line:)`) to run once the loop has nothing
/// else to do; cancel it to withdraw.
///
/// All operations on `IdleRegistration` are thread-safe.
///
/// The body runs once, on the loop (the main actor; an `EventLoop`'s own thread), in the idle phase of an iteration that left nothing pending:
/// no posts waiting, nothing pending for settle, no timer due now — right before the loop would block. Then the
/// registration is spent (``isActive`` turns `false`). For repeating idle work, register again from the body: the
/// new registration runs in a later iteration's idle phase (see ``SerialLoop/whenIdle(_:fileID:line:)`` for why that never spins
/// the loop).
///
/// ```swift
/// let registration = loop.whenIdle {
///     cache.compact()      // runs once the burst of posts that filled the cache has run
/// }
/// // Later, from any thread, if compacting is no longer wanted:
/// registration.cancel()
/// ```
///
/// Dropping a registration does not cancel it.
public final class IdleRegistration: @unchecked Sendable {
    // @unchecked Sendable: `body` is protected by `queue`'s lock (`_IdleQueue`).
    package var body: _IdleBody?
    private let queue: _IdleQueue
    /// Where the body was registered.
    public let site: LoopSite

    package init(_ body: _IdleBody, site: LoopSite, queue: _IdleQueue) {
        self.body = body
        self.site = site
        self.queue = queue
    }

    /// Whether the body will still run (it has neither run, nor been cancelled, nor been released by shutdown).
    public var isActive: Bool { queue.isActive(self) }

    /// Withdraws the body: it will not run, and what it captured is released (outside any lock). Idempotent; safe
    /// from inside an idle body, and a no-op once the body has run.
    public func cancel() {
        queue.cancel(self)
    }
}

/// What an idle body runs on: the main actor (`MainLoop`, `TestLoop`) or an `EventLoop`'s thread.
package enum _IdleBody: Sendable {
    case mainActor(@MainActor @Sendable () -> Void)
    case loopThread(@Sendable () -> Void)
}
