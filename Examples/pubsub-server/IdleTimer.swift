import Mainline

/// Calls its `onIdle` block when no activity was noted for `timeout`: the idle clock of one client (activity: a
/// completed command line), and the stall clock of a queue group's client (activity: a write that reached the kernel,
/// see ``SlowConsumerWatch``).
///
/// Must be used on the main actor; it runs on the main loop's timers (`MainLoop.main.schedule(after:)`), because
/// what counts as activity and what idleness decides (closing the client, handing its group messages on) both live on
/// the main loop.
///
/// One timer per client, whatever the traffic: ``noteActivity()`` only records the time, and when the timer fires
/// early (activity came since it was armed) it re-arms for the rest of the period. So a flood of commands costs a
/// clock read per command, not a timer per command.
@MainActor
final class IdleTimer {
    /// How long without activity counts as idle.
    let timeout: Duration
    private let loop: any Loop
    private let label: StaticString
    private let onIdle: @MainActor () -> Void
    /// When activity was last noted (protected by the main actor, as every property here).
    private var lastActivity: LoopInstant
    private var task: ScheduledTask?

    /// Starts the clock now: `onIdle` runs once `timeout` passes without ``noteActivity()``.
    ///
    /// - Parameters:
    ///   - timeout: How long without activity counts as idle; positive.
    ///   - loop: The loop whose timers measure it: the main loop, or a test's `TestLoop`.
    ///   - label: What its timer is called in the loop's snapshot.
    ///   - onIdle: Runs on the main actor when the client has been idle for `timeout`. The clock then starts again,
    ///     so `onIdle` runs every `timeout` for as long as the client stays idle and the timer is not cancelled.
    init(
        timeout: Duration,
        loop: any Loop = MainLoop.main,
        label: StaticString = "pubsub: idle check",
        onIdle: @escaping @MainActor () -> Void
    ) {
        self.timeout = timeout
        self.loop = loop
        self.label = label
        self.onIdle = onIdle
        lastActivity = loop.now
        arm(after: timeout)
    }

    /// Notes activity now: the idle period starts again. Costs a clock read.
    func noteActivity() {
        lastActivity = loop.now
    }

    /// Stops the clock for good. Idempotent.
    func cancel() {
        task?.cancel()
        task = nil
    }

    private func arm(after delay: Duration) {
        task = loop.schedule(after: delay, label: label) { [weak self] in self?.fire() }
    }

    private func fire() {
        let idleFor = loop.now - lastActivity
        if idleFor < timeout {
            arm(after: timeout - idleFor)
        } else {
            lastActivity = loop.now
            arm(after: timeout)
            onIdle()
        }
    }
}
