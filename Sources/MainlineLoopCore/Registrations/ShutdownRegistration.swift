/// Work registered with `MainLoop.onShutdown(_:)` to run on the loop during its graceful shutdown; cancel it to withdraw.
///
/// Must be used on the main actor.
///
/// When a loop stops — ``SerialLoop/stop()`` from anywhere, `MainLoopService` at graceful shutdown, a signal handler in
/// owner mode — it drains in this order, on the loop: the work already posted runs, pending settle notifications are
/// delivered, then **shutdown hooks run in registration order**, then what they triggered settles, and only then are
/// timers and signal handlers cancelled and handles closed. A hook is the place to flush a buffer, say goodbye to
/// clients or close sockets the loop watches. Posting from a hook is refused (`post` returns `false`): do the work
/// right there.
///
/// ```swift
/// let registration = loop.onShutdown {
///     server.closeAllConnections()
/// }
/// // Later, if the server closed first:
/// registration.cancel()
/// ```
///
/// Dropping a registration does not cancel it.
@MainActor
public final class ShutdownRegistration {
    // Protected by the main actor.
    package var body: (@MainActor () -> Void)?

    /// Whether it came from a loop that keeps no shutdown hooks (`Loop.onShutdown(_:)`'s default): it never runs,
    /// though the loop has not stopped. Immutable.
    package let loopKeepsNoHooks: Bool

    package init(_ body: @escaping @MainActor () -> Void) {
        self.body = body
        self.loopKeepsNoHooks = false
    }

    /// A registration that never runs, from a loop that keeps no shutdown hooks.
    package init(loopKeepsNoHooks: ()) {
        self.body = nil
        self.loopKeepsNoHooks = true
    }

    /// Whether the hook will still run at shutdown.
    public var isActive: Bool { body != nil }

    /// Withdraws the hook: it will not run, and what it captured is released. Idempotent.
    public func cancel() {
        body = nil
    }
}
