import MainlineLoop

/// One lifecycle tick, as ``ViewModelScope/tick(every:_:)`` delivers it.
///
/// `Tick` is a value type; all operations on it are thread-safe.
public struct Tick: Sendable, Hashable {
    /// 1 for the first tick of this request, then 2, 3, …: ticks that ran, not ticks that were due.
    public var index: Int
    /// Ticks skipped just before this one, because the loop reached it late.
    public var skipped: Int
    /// Ticks skipped since the request began.
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
