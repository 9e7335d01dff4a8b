import MainlineLoop
import MainlineTesting

/// What a user writes for a `Loop` of their own that wraps another: every requirement without a default, forwarded to
/// a `TestLoop` (``inner``), which the test steps. It is neither `MainLoop` nor `TestLoop`, so the package can only
/// reach it through the `Loop` protocol. Subclasses add the conformance: ``LoopWithoutShutdownHooks`` (the protocol's
/// `onShutdown(_:)` default) and ``LoopForwardingShutdownHooks``.
@MainActor class WrappedLoop {
    /// The loop everything is forwarded to.
    nonisolated let inner: TestLoop

    nonisolated init(_ inner: TestLoop) {
        self.inner = inner
    }

    var budgets: LoopBudgets {
        get { inner.budgets }
        set { inner.budgets = newValue }
    }

    var now: LoopInstant { inner.now }

    nonisolated var clock: LoopClock { inner.clock }

    nonisolated func post(_ body: @escaping @MainActor @Sendable () -> Void, from site: LoopSite) -> Bool {
        inner.post(body, from: site)
    }

    nonisolated func stop() { inner.stop() }

    func schedule(after delay: Duration, from site: LoopSite, _ body: @escaping @MainActor () -> Void) -> ScheduledTask
    {
        inner.schedule(after: delay, from: site, body)
    }

    func scheduleRepeating(
        every interval: Duration,
        from site: LoopSite,
        _ body: @escaping @MainActor (ScheduledTask) -> Void
    ) -> ScheduledTask {
        inner.scheduleRepeating(every: interval, from: site, body)
    }

    func requestSettle(_ notification: SettleNotification) -> Bool { inner.requestSettle(notification) }

    func onSignal(
        _ signal: LoopSignal,
        _ handler: @escaping @MainActor (LoopSignal) -> Void
    ) -> SignalRegistration {
        inner.onSignal(signal, handler)
    }
}

/// A wrapping loop that leaves `onShutdown(_:)` to the protocol's default: it cannot run shutdown work.
@MainActor final class LoopWithoutShutdownHooks: WrappedLoop, Loop {}

/// A wrapping loop that forwards `onShutdown(_:)`, as the `Loop` documentation asks of a loop of one's own.
@MainActor final class LoopForwardingShutdownHooks: WrappedLoop, Loop {
    func onShutdown(_ body: @escaping @MainActor () -> Void) -> ShutdownRegistration { inner.onShutdown(body) }
}
