/// What an inspector shows of a loop (schema 1): who it is, its counters, what its flight recorder holds, and — from a
/// snapshot — its timers and where its waiting posts came from. `MainLoop` and `EventLoop` register with the
/// inspection registry when they are created; the describers run on the inspector's thread.
extension _InspectionRegistry {
    /// Registers a main-actor loop.
    func register(_ loop: MainLoop) {
        let collector = _LoopSnapshotCollector()
        register(loop, in: .loops) { [weak loop] detail in
            guard let loop else { return nil }
            let now = _UVClock.nanoseconds()
            let name = loop === MainLoop.main ? "main" : "MainLoop"
            let recorder = loop.flightRecorder
            var fields: [(String, _InspectionValue)] = [
                ("name", .string(name)), ("kind", .string("MainLoop")), ("state", .string(loop.state.description)),
            ]
            guard case .summary = detail else {
                fields += [
                    ("capacityBytes", .int(recorder.settings.capacityBytes)),
                    ("events", recorder.inspectionEvents(now: now)),
                ]
                return .object(fields)
            }
            let (snapshot, fresh) = collector.snapshot(of: loop)
            fields += Self.counters(loop.core.scheduler, settleDeliveries: snapshot?.counters.settleDeliveries)
            fields += recorder.inspectionSummary(now: now)
            fields += Self.snapshotFields(snapshot, fresh: fresh)
            return .object(fields)
        }
    }

    /// Registers a secondary loop (its snapshot is thread-safe).
    func register(_ loop: EventLoop) {
        register(loop, in: .loops) { [weak loop] detail in
            guard let loop else { return nil }
            let now = _UVClock.nanoseconds()
            let recorder = loop.flightRecorder
            let snapshot = loop.snapshot()
            var fields: [(String, _InspectionValue)] = [
                ("name", .string(loop.name)), ("kind", .string("EventLoop")), ("state", .string("\(snapshot.state)")),
            ]
            guard case .summary = detail else {
                fields += [
                    ("capacityBytes", .int(recorder.settings.capacityBytes)),
                    ("events", recorder.inspectionEvents(now: now)),
                ]
                return .object(fields)
            }
            fields += Self.counters(loop.driver.scheduler, settleDeliveries: nil)
            fields += recorder.inspectionSummary(now: now)
            fields += Self.snapshotFields(snapshot, fresh: true)
            return .object(fields)
        }
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
