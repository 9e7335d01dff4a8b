/// Something a test did during an exploration run that virtual time does not control: what `explore` reports as a
/// failure of the run (see `_TaskLane`). A value; thread-safe.
package struct _Escape: Sendable, Equatable, CustomStringConvertible {
    /// What kind of escape.
    package enum Kind: String, Sendable {
        /// Read a real clock through the package's clock types (`MainLoop.now`, `EventLoop.now`, a real loop's clock).
        case realClockRead = "read a real clock"
        /// Slept on a real loop's clock. (A task of the run sleeping on `ContinuousClock` is woken from outside the run:
        /// ``realWait``.)
        case realSleep = "slept on a real clock"
        /// Posted to a test loop from a thread the loop did not start.
        case postFromOtherThread = "posted from a thread the loop did not start"
        /// A task of the run waited on something outside it (real I/O, a thread) and was resumed from there.
        case realWait = "waited on something outside virtual time"
    }

    /// What kind of escape.
    package var kind: Kind
    /// What exactly: the call, or the site of the post.
    package var detail: String
    /// Where it ran: in the test body, in task N of the run, or on a thread the loop did not start.
    package var context: String

    /// Creates an escape. Callable from any thread.
    package init(kind: Kind, detail: String, context: String) {
        self.kind = kind
        self.detail = detail
        self.context = context
    }

    /// One line: what kind, what exactly, where.
    package var description: String { "\(kind.rawValue): \(detail), in \(context)" }

    /// Records an escape of `kind` in the lane of the run the calling code belongs to, unless it said it may leave
    /// virtual time (`_TaskLane.allowance`) or belongs to no watching run. Thread-safe; with no run watching anywhere it
    /// costs one atomic load.
    ///
    /// - Parameters:
    ///   - kind: What kind of escape.
    ///   - detail: The call, as the report names it (`"MainLoop.now"`).
    @inline(__always)
    package static func note(_ kind: Kind, _ detail: @autoclosure () -> String) {
        guard _TaskLane.isAnyWatching else { return }
        noteSlow(kind, detail())
    }

    private static func noteSlow(_ kind: Kind, _ detail: String) {
        guard _TaskLane.allowance == nil, let (lane, context) = _VirtualTimeTasks.laneOfCurrentCode() else { return }
        lane.record(_Escape(kind: kind, detail: detail, context: context))
    }
}
