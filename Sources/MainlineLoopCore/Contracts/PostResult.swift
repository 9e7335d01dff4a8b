/// What happened to work handed to a loop with `tryPost`: accepted, refused because the loop's queue is full, or
/// refused because the loop has stopped.
///
/// `PostResult` is a value type; all operations on it are thread-safe.
///
/// A producer that would rather shed or retry than lose work silently asks with `tryPost` instead of `post`:
///
/// ```swift
/// switch MainLoop.main.tryPost({ model.apply(reading) }) {
/// case .accepted: break
/// case .full: readingsShed += 1            // the loop is behind: drop this reading, or retry later
/// case .stopped: return                     // shutting down
/// }
/// ```
///
/// A loop is full only when it was given a limit (``LoopBudgets/maxPendingPosts``); by default it never is.
public enum PostResult: Hashable, Sendable, CustomStringConvertible {
    /// The work will run on the loop, exactly once.
    case accepted
    /// The loop already holds ``LoopBudgets/maxPendingPosts`` posts that have not run: the work was released unrun
    /// and counted (`mainline_loop_posts_rejected`).
    case full
    /// The loop has stopped: the work was released unrun.
    case stopped

    /// Whether the work will run.
    public var isAccepted: Bool { self == .accepted }

    /// `accepted`, `full` or `stopped`.
    public var description: String {
        switch self {
        case .accepted: "accepted"
        case .full: "full"
        case .stopped: "stopped"
        }
    }
}

extension _JobQueue.EnqueueResult {
    /// The public face of an enqueue; `enqueuedWithoutWaker` counts as accepted (the caller starts the loop).
    package var postResult: PostResult {
        switch self {
        case .enqueued, .enqueuedWithoutWaker: .accepted
        case .full: .full
        case .closed: .stopped
        }
    }
}
