import MainlineLoop

/// Runs a block once, in the loop's settle phase, however many times it was scheduled before that.
///
/// ``schedule()`` is thread-safe; everything else must be called on the main actor.
///
/// ```swift
/// let redraw = CoalescingCallback { screen.render() }
/// for row in changedRows { model.update(row); redraw.schedule() }
/// // … the current callback returns; the loop settles and renders once.
/// ```
///
/// - Any number of ``schedule()`` calls before delivery produce exactly one call of the block, on the main
///   actor, in the settle phase of the current loop iteration (when scheduled from the loop's own callbacks) or
///   of the next one (from anywhere else). Never synchronously inside `schedule()`.
/// - Scheduling from the block itself schedules one more call.
/// - ``cancel()`` withdraws a pending call for good; deallocating the callback cancels it too.
@MainActor
public final class CoalescingCallback {
    private nonisolated let trigger: _CoalescingTrigger
    private var block: (@MainActor () -> Void)?

    /// Creates a callback.
    ///
    /// - Parameters:
    ///   - loop: The loop whose settle phase runs the block; the main loop unless a test passes a `TestLoop`.
    ///   - height: The dependency height of the block in settle: 0 unless it reacts to other lazy events, in which
    ///     case one more than the highest of theirs (see `SettleNotification`).
    ///   - fileID: The creator's file: the block's site in the flight recorder (leave the default).
    ///   - line: The creator's line (leave the default).
    ///   - block: What to run.
    public init(
        loop: any Loop = MainLoop.main,
        height: Int = 0,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @MainActor () -> Void
    ) {
        self.trigger = _CoalescingTrigger(loop: loop)
        self.block = block
        trigger.attach(
            SettleNotification(height: height, fileID: fileID, line: line) { [weak self] in self?.deliver() }
        )
    }

    /// Schedules one call of the block. Thread-safe; cheap when a call is already pending; never blocks.
    public nonisolated func schedule() {
        trigger.fire()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { trigger.isCancelled }

    /// Withdraws a pending call and ignores every later ``schedule()``; releases the block. Idempotent.
    public func cancel() {
        trigger.cancel()
        block = nil
    }

    private func deliver() {
        trigger.willDeliver()
        block?()
    }
}
