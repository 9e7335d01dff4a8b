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

    /// At most this many posts may wait for the loop at once (posted, not yet run); `nil`, the default, for no limit.
    ///
    /// When the limit is reached, `post` returns `false` and `tryPost` returns ``PostResult/full``: the body is
    /// released unrun, counted in `mainline_loop_posts_rejected`, and the producer decides whether to shed or retry.
    /// `post` never blocks either way. Without a limit a loop that is blocked or slower than its producers queues
    /// every post (about 60 bytes each, more with what the closures capture); after such a burst the loop gives the
    /// queue's memory back once it has drained it.
    public var maxPendingPosts: Int?

    /// Creates budgets.
    ///
    /// - Parameters:
    ///   - postsPerIteration: Posted closures per iteration; at least 1. A budget of about 1,024 keeps one
    ///     iteration's post phase under a millisecond of CPU for small closures on this class of machine.
    ///   - settleRoundsPerIteration: Settle rounds per iteration; at least 1.
    ///   - maxPendingPosts: At most this many posts waiting at once; at least 1, or `nil` (the default) for no limit.
    public init(postsPerIteration: Int = 1024, settleRoundsPerIteration: Int = 16, maxPendingPosts: Int? = nil) {
        precondition(postsPerIteration >= 1, "LoopBudgets.postsPerIteration must be at least 1")
        precondition(settleRoundsPerIteration >= 1, "LoopBudgets.settleRoundsPerIteration must be at least 1")
        precondition(maxPendingPosts.map { $0 >= 1 } ?? true, "LoopBudgets.maxPendingPosts must be at least 1")
        self.postsPerIteration = postsPerIteration
        self.settleRoundsPerIteration = settleRoundsPerIteration
        self.maxPendingPosts = maxPendingPosts
    }

    /// 1,024 posts and 16 settle rounds per iteration, no limit on pending posts.
    public static let `default` = LoopBudgets()
}
