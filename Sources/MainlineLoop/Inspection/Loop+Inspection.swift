import MainlineInspectorSchema
import MainlineLoopCore

/// What an inspector shows of a loop (schema 1): who it is, its counters, what its flight recorder holds, and — from a
/// snapshot — its timers and where its waiting posts came from. `MainLoop` and `EventLoop` register with the
/// inspection registry when they are created; the describers run on the inspector's thread.
extension _InspectionRegistry {
    /// Registers a main-actor loop, through a handle the loop owns (see `_LoopInspectionHandle`).
    ///
    /// - Parameters:
    ///   - core: The loop's core (held by the handle).
    ///   - lifecycle: Reads the loop's state, thread-safely.
    ///   - isMain: Whether it is `MainLoop.main`.
    /// - Returns: The handle: the loop keeps it, and the registry's entry goes when it does.
    func registerMainLoop(
        core: _LoopCore,
        state: @escaping @Sendable () -> MainLoop.State,
        isMain: Bool
    ) -> _LoopInspectionHandle {
        let collector = _LoopSnapshotCollector()
        let handle = _LoopInspectionHandle { detail -> any Sendable in
            let recorder = core.scheduler.recorder
            let current = state()
            let name = isMain ? "main" : "MainLoop"
            guard case .summary = detail else {
                return recorder.inspectionRecording(
                    name: name,
                    kind: "MainLoop",
                    state: current.description,
                    now: _MonotonicClock.nanoseconds()
                )
            }
            let (snapshot, fresh) = collector.snapshot(of: core, state: current)
            // Read after the snapshot, which may wait for the loop up to `_LoopSnapshotCollector.wait`: the job
            // running by then began before this read, unless it began in the instant between (its age is then 0).
            let now = _MonotonicClock.nanoseconds()
            var summary = Self.summary(
                of: snapshot,
                fresh: fresh,
                name: name,
                kind: "MainLoop",
                state: current.description
            )
            Self.fillCounters(&summary, core.scheduler)
            recorder.fillInspectionSummary(&summary, now: now)
            return summary
        }
        register(handle)
        return handle
    }

    /// Registers a secondary loop (its snapshot is thread-safe), through a handle the loop owns.
    func registerEventLoop(driver: EventLoop._Driver, name: String) -> _LoopInspectionHandle {
        let handle = _LoopInspectionHandle { detail -> any Sendable in
            let now = _MonotonicClock.nanoseconds()
            let recorder = driver.scheduler.recorder
            let snapshot = driver.snapshot(loop: "EventLoop(\(name))")
            guard case .summary = detail else {
                return recorder.inspectionRecording(name: name, kind: "EventLoop", state: "\(snapshot.state)", now: now)
            }
            var summary = Self.summary(
                of: snapshot,
                fresh: true,
                name: name,
                kind: "EventLoop",
                state: "\(snapshot.state)"
            )
            Self.fillCounters(&summary, driver.scheduler)
            recorder.fillInspectionSummary(&summary, now: now)
            return summary
        }
        register(handle)
        return handle
    }

    /// Registers `loop` in this registry (a registry of a test's own: every loop is in ``shared`` already).
    ///
    /// - Returns: The handle; the entry lasts as long as the caller keeps it.
    package func register(_ loop: MainLoop) -> _LoopInspectionHandle {
        registerMainLoop(
            core: loop.core,
            state: { [lifecycle = loop.lifecycle] in lifecycle.withLock { $0.state } },
            isMain: false
        )
    }

    /// Registers `loop` in this registry (a registry of a test's own: every loop is in ``shared`` already).
    ///
    /// - Returns: The handle; the entry lasts as long as the caller keeps it.
    func register(_ loop: EventLoop) -> _LoopInspectionHandle {
        registerEventLoop(driver: loop.driver, name: loop.name)
    }

    private func register(_ handle: _LoopInspectionHandle) {
        register(handle, in: .loops) { [weak handle] detail in handle?.describe(detail) }
    }

    /// The summary of `snapshot` (``LoopSummary/init(_:)``: its timers, waiting posts by site, settle and idle
    /// work), under the inspector's `name`, `kind` and `state`; without a snapshot, those three only, the snapshot's
    /// fields `null`.
    private static func summary(
        of snapshot: LoopSnapshot?,
        fresh: Bool,
        name: String,
        kind: String,
        state: String
    ) -> LoopSummary {
        var summary = snapshot.map { LoopSummary($0) } ?? LoopSummary(name: name, kind: kind, state: state)
        summary.name = name
        summary.kind = kind
        summary.state = state
        summary.snapshotFresh = snapshot != nil && fresh
        return summary
    }

    /// Writes the counters every loop keeps thread-safely into `summary`, over a snapshot's (which may be the last
    /// one a stalled loop took): the phase, iterations, posts run, waiting, refused and discarded, timer firings.
    private static func fillCounters(_ summary: inout LoopSummary, _ scheduler: _LoopScheduler) {
        let counters = scheduler.counters()
        summary.phase = "\(scheduler.progress.phase)"
        summary.iterations = counters.iterations
        summary.postsRun = counters.postsRun
        summary.postsPending = scheduler.pendingPosts(onLoop: false)
        summary.postsRejected = counters.postsRejected
        summary.postsDiscarded = counters.postsDiscarded
        summary.timersFired = counters.timersFired
    }
}

/// What the registry holds weakly for a loop: an object of the loop's own, not the loop. A weakly referenced object
/// keeps its reference counts in a side table, which makes every retain and release of it slower — and callers retain
/// `MainLoop.main` around every post (measured: `MainLoop.main.post` 23 → 56 ns, the hand-off 270 → 570 ns, when the
/// registry held the loop itself). The handle holds what the description reads, thread-safe parts only.
///
/// All operations on `_LoopInspectionHandle` are thread-safe.
package final class _LoopInspectionHandle: Sendable {
    /// A `LoopSummary` for `.summary`, a `LoopRecording` for `.recorder`.
    let describe: @Sendable (_InspectionRegistry.Detail) -> any Sendable

    init(describe: @escaping @Sendable (_InspectionRegistry.Detail) -> any Sendable) {
        self.describe = describe
    }
}
