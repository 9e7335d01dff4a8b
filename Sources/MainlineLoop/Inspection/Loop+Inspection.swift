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
        let handle = _LoopInspectionHandle { detail in
            let recorder = core.scheduler.recorder
            let current = state()
            var fields: [(String, _InspectionValue)] = [
                ("name", .string(isMain ? "main" : "MainLoop")), ("kind", .string("MainLoop")),
                ("state", .string(current.description)),
            ]
            guard case .summary = detail else {
                fields += [
                    ("capacityBytes", .int(recorder.settings.capacityBytes)),
                    ("events", recorder.inspectionEvents(now: _MonotonicClock.nanoseconds())),
                ]
                return .object(fields)
            }
            let (snapshot, fresh) = collector.snapshot(of: core, state: current)
            // Read after the snapshot, which may wait for the loop up to `_LoopSnapshotCollector.wait`: the job
            // running by then began before this read, unless it began in the instant between (its age is then 0).
            let now = _MonotonicClock.nanoseconds()
            fields += Self.counters(core.scheduler, settleDeliveries: snapshot?.counters.settleDeliveries)
            fields += recorder.inspectionSummary(now: now)
            fields += Self.snapshotFields(snapshot, fresh: fresh)
            return .object(fields)
        }
        register(handle)
        return handle
    }

    /// Registers a secondary loop (its snapshot is thread-safe), through a handle the loop owns.
    func registerEventLoop(driver: EventLoop._Driver, name: String) -> _LoopInspectionHandle {
        let handle = _LoopInspectionHandle { detail in
            let now = _MonotonicClock.nanoseconds()
            let recorder = driver.scheduler.recorder
            let snapshot = driver.snapshot(loop: "EventLoop(\(name))")
            var fields: [(String, _InspectionValue)] = [
                ("name", .string(name)), ("kind", .string("EventLoop")), ("state", .string("\(snapshot.state)")),
            ]
            guard case .summary = detail else {
                fields += [
                    ("capacityBytes", .int(recorder.settings.capacityBytes)),
                    ("events", recorder.inspectionEvents(now: now)),
                ]
                return .object(fields)
            }
            fields += Self.counters(driver.scheduler, settleDeliveries: nil)
            fields += recorder.inspectionSummary(now: now)
            fields += Self.snapshotFields(snapshot, fresh: true)
            return .object(fields)
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

    /// The counters every loop keeps thread-safely.
    private static func counters(_ scheduler: _LoopScheduler, settleDeliveries: Int?) -> [(String, _InspectionValue)] {
        let counters = scheduler.counters()
        return [
            ("phase", .string("\(scheduler.progress.phase)")),
            ("iterations", .int(counters.iterations)),
            ("postsRun", .int(counters.postsRun)),
            ("postsPending", .int(scheduler.pendingPosts(onLoop: false))),
            ("postsRejected", .int(counters.postsRejected)),
            ("timersFired", .int(counters.timersFired)),
            ("settleDeliveries", settleDeliveries.map { .int($0) } ?? .null),
        ]
    }

    /// The timers (soonest first, at most 50) and the waiting posts by site, from a snapshot.
    private static func snapshotFields(_ snapshot: LoopSnapshot?, fresh: Bool) -> [(String, _InspectionValue)] {
        guard let snapshot else {
            return [("timers", .null), ("pendingPostsBySite", .null), ("snapshotFresh", .bool(false))]
        }
        let timers = snapshot.timers.prefix(50).map { timer -> _InspectionValue in
            .object([
                ("site", .nullable(timer.site?.location)),
                ("label", .nullable(timer.label)),
                // Negative for a timer that is due and has not fired yet.
                ("dueInMs", .double(Double((timer.deadline - snapshot.now).mainlineNanoseconds / 1_000) / 1_000)),
                ("repeating", .bool(timer.interval != nil)),
                ("firings", .int(timer.firings)),
            ])
        }
        let bySite = snapshot.pendingPostsBySite.map { entry -> _InspectionValue in
            .object([
                ("site", .string(entry.site.location)), ("label", .nullable(entry.site.label)),
                ("count", .int(entry.count)),
            ])
        }
        return [("timers", .array(timers)), ("pendingPostsBySite", .array(bySite)), ("snapshotFresh", .bool(fresh))]
    }
}

/// What the registry holds weakly for a loop: an object of the loop's own, not the loop. A weakly referenced object
/// keeps its reference counts in a side table, which makes every retain and release of it slower — and callers retain
/// `MainLoop.main` around every post (measured: `MainLoop.main.post` 23 → 56 ns, the hand-off 270 → 570 ns, when the
/// registry held the loop itself). The handle holds what the description reads, thread-safe parts only.
///
/// All operations on `_LoopInspectionHandle` are thread-safe.
package final class _LoopInspectionHandle: Sendable {
    let describe: @Sendable (_InspectionRegistry.Detail) -> _InspectionValue?

    init(describe: @escaping @Sendable (_InspectionRegistry.Detail) -> _InspectionValue?) {
        self.describe = describe
    }
}
