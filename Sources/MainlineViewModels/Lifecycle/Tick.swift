import MainlineLoop

/// One lifecycle tick, as ``ViewModelScope/tick(every:_:)`` delivers it.
///
/// `Tick` is a value type; all operations on it are thread-safe.
///
/// Ticks keep a fixed rate: the *k*-th is due at `start + k × interval`. A tick the loop reaches late runs once, in
/// place of the **first** tick it missed, and ``skipped`` counts only the ones after that. For a 1-second tick
/// requested at 0 s on a loop busy from 1 s to 4.5 s:
///
/// | runs at | index | skipped | totalSkipped | stands for the tick due at |
/// |---|---|---|---|---|
/// | 1 s | 1 | 0 | 0 | 1 s |
/// | 4.5 s | 2 | **2** | 2 | 2 s (the ticks due at 3 s and 4 s are skipped) |
/// | 5 s | 3 | 0 | 2 | 5 s |
///
/// Three deadlines passed while the loop was busy (2 s, 3 s, 4 s), but `skipped` is 2, not 3: the late tick itself
/// stands for one of them. So `1 + skipped` is how many intervals a tick accounts for, and `index + totalSkipped` is
/// how many have passed since the request (5 at 5 s).
public struct Tick: Sendable, Hashable {
    /// 1 for the first tick of this request, then 2, 3, …: ticks that ran, not ticks that were due.
    public var index: Int
    /// Ticks skipped just before this one, because the loop reached it late — not counting this tick, which runs in
    /// place of the first one missed.
    ///
    /// A 1-second tick on a loop busy from 1 s to 4.5 s runs at 4.5 s with `skipped` 2: it stands for the tick due at
    /// 2 s, and the ones due at 3 s and 4 s are skipped. `1 + skipped` is how many intervals this tick accounts for.
    public var skipped: Int
    /// Ticks skipped since the request began; `index + totalSkipped` is how many intervals have passed since then.
    public var totalSkipped: Int
    /// The loop's clock when the tick ran.
    public var now: LoopInstant

    /// Creates a tick.
    public init(index: Int, skipped: Int, totalSkipped: Int, now: LoopInstant) {
        self.index = index
        self.skipped = skipped
        self.totalSkipped = totalSkipped
        self.now = now
    }
}
