/// How much work one iteration of a loop does before it lets timers and I/O have their turn.
///
/// `LoopBudgets` is a value type; all operations on it are thread-safe.
///
/// The budgets keep a flood from starving anything: a producer posting a million closures, or an event that
/// triggers itself from its own delivery, delays timers by at most one budget's worth of work.
public struct LoopBudgets: Hashable, Sendable {
    /// Posted closures run per iteration. What is left runs in the next iteration, without blocking in between.
    public var postsPerIteration: Int

    /// Settle rounds per iteration. What is still pending then is delivered in the next iteration.
    public var settleRoundsPerIteration: Int

    /// Creates budgets.
    ///
    /// - Parameters:
    ///   - postsPerIteration: Posted closures per iteration; at least 1. A budget of about 1,024 keeps one
    ///     iteration's post phase under a millisecond of CPU for small closures on this class of machine.
    ///   - settleRoundsPerIteration: Settle rounds per iteration; at least 1.
    public init(postsPerIteration: Int = 1024, settleRoundsPerIteration: Int = 16) {
        precondition(postsPerIteration >= 1, "LoopBudgets.postsPerIteration must be at least 1")
        precondition(settleRoundsPerIteration >= 1, "LoopBudgets.settleRoundsPerIteration must be at least 1")
        self.postsPerIteration = postsPerIteration
        self.settleRoundsPerIteration = settleRoundsPerIteration
    }

    /// 1,024 posts and 16 settle rounds per iteration.
    public static let `default` = LoopBudgets()
}
