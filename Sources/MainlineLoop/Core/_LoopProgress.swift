/// What a main-actor loop's core has done and is doing, for snapshots: the phase it is in and its counters.
///
/// Not thread-safe: the core keeps it, protected by the main actor.
///
/// Kept for snapshots, so it must cost nothing when nobody takes one: each phase writes its marker once and adds
/// its count once (per phase, never per post or per timer), and the iteration count is one add per iteration.
struct _LoopProgress {
    /// The phase running now (`.waiting` between iterations).
    var phase = LoopSnapshot.Phase.waiting
    /// Iterations completed.
    var iterations = 0
    /// Posted jobs run, including those run while shutting down.
    var postsRun = 0
    /// Timer firings.
    var timersFired = 0

    /// The iteration is over: the loop waits for the next one.
    @inline(__always)
    mutating func endIteration() {
        iterations &+= 1
        phase = .waiting
    }
}
