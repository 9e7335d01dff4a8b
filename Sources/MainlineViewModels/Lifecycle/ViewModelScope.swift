import MainlineLoop

/// Work tied to a lifetime — a view model's whole life, or one resumed span — cancelled together when it ends.
///
/// Must be used on the main actor.
///
/// ```swift
/// override func onResume(_ scope: ViewModelScope) {
///     scope.launch { await self.refreshUntilCancelled() }         // cancelled on pause
///     scope.tick(every: .seconds(1)) { _ in self.updateClock() }  // stops on pause
/// }
/// ```
///
/// Once a scope has ended, launching into it is misuse (reported to `Diagnostics` as `launchAfterScopeEnded`) and
/// starts nothing.
@MainActor
public final class ViewModelScope {
    /// What the scope belongs to, for messages.
    private let name: String
    private let loop: any Loop
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var nextTaskID = 0
    private var timers: [ScheduledTask] = []

    /// Whether the scope has ended (its work was cancelled).
    public private(set) var hasEnded = false

    init(name: String, loop: any Loop) {
        self.name = name
        self.loop = loop
    }

    /// Starts `operation` as a task on the main actor, cancelled when the scope ends.
    ///
    /// - Parameter operation: The work; check for cancellation (`Task.isCancelled`, `try Task.checkCancellation()`).
    /// - Returns: The task, or `nil` if the scope has already ended.
    @discardableResult
    public func launch(_ operation: @escaping @MainActor () async -> Void) -> Task<Void, Never>? {
        guard !hasEnded else {
            Diagnostics.report(
                .launchAfterScopeEnded,
                "Work was launched into \(name) after it ended. Launch lifetime work before clear(), and resumed work from onResume(_:) into the scope it receives. Nothing was started."
            )
            return nil
        }
        let id = nextTaskID
        nextTaskID += 1
        // The task starts only after this main-actor code returns, so it is registered before it can finish.
        let clock = loop.clock
        let task = Task { @MainActor [weak self] in
            // On a TestLoop the task joins virtual time before its first step off the main actor.
            clock.source.adoptCurrentTask()
            await operation()
            // Done: a finished task must not leave its address behind for another task to inherit.
            clock.source.releaseCurrentTask()
            self?.tasks[id] = nil
        }
        tasks[id] = task
        return task
    }

    /// Calls `body` every `interval` on the loop's clock (``clock``, the one ``sleep(for:)`` sleeps on) while the scope
    /// lives: the lifecycle tick.
    ///
    /// Ticks run at a fixed rate from now. A tick the loop reaches late runs once, in place of the first tick it
    /// missed; the others are skipped — never queued — and counted in ``Tick/skipped`` (a 1-second tick on a loop
    /// busy from 1 s to 4.5 s runs at 4.5 s with `skipped` 2, not 3: see ``Tick``). Ticks stop when the scope ends
    /// (for a resumed scope: on pause).
    ///
    /// - Parameters:
    ///   - interval: The period; must be positive (see `Loop.scheduleRepeating(every:fileID:line:_:)`).
    ///   - body: What to do on each tick.
    /// - Returns: The timer, or `nil` if the scope has already ended.
    @discardableResult
    public func tick(every interval: Duration, _ body: @escaping @MainActor (Tick) -> Void) -> ScheduledTask? {
        guard !hasEnded else {
            Diagnostics.report(
                .launchAfterScopeEnded,
                "A tick was requested from \(name) after it ended. Ask for ticks in onResume(_:), on the scope it receives. No tick was scheduled."
            )
            return nil
        }
        var count = 0
        var previouslySkipped = 0
        let timer = loop.scheduleRepeating(every: interval) { [loop] task in
            count += 1
            let skipped = task.skippedFirings - previouslySkipped
            previouslySkipped = task.skippedFirings
            body(Tick(index: count, skipped: skipped, totalSkipped: task.skippedFirings, now: loop.clock.now))
        }
        timers.append(timer)
        return timer
    }

    /// The clock of the scope's loop: what ``sleep(for:)`` and the ticks run on. Virtual time on a `TestLoop`.
    public var clock: LoopClock { loop.clock }

    /// Suspends the calling task for `duration` on the loop's clock — in virtual time on a `TestLoop`.
    ///
    /// ```swift
    /// override func onResume(_ scope: ViewModelScope) {
    ///     scope.launch {
    ///         while !Task.isCancelled {
    ///             try? await scope.sleep(for: .seconds(1))
    ///             self.refresh()
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// The same as `Task.sleep(for: duration, clock: scope.clock)`, without its hop off the main actor.
    ///
    /// - Parameter duration: How long to sleep.
    /// - Throws: `CancellationError` when the task is cancelled first — as it is when the scope ends (for a resumed
    ///   scope: on pause); `LoopStopped` if the loop stops first.
    public func sleep(for duration: Duration) async throws {
        try await loop.clock.sleep(for: duration)
    }

    /// How many launched tasks are still running.
    public var runningTaskCount: Int { tasks.count }

    /// Ends the scope: cancels every task and timer. Idempotent.
    func end() {
        guard !hasEnded else { return }
        hasEnded = true
        for task in tasks.values { task.cancel() }
        tasks = [:]
        for timer in timers { timer.cancel() }
        timers = []
    }
}
