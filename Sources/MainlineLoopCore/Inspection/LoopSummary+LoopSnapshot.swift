import MainlineInspectorSchema

/// The one mapping from a loop's snapshot to the inspector's schema: what ``LoopSnapshot/description`` renders and
/// what the inspector serves of a loop's snapshot (the inspector writes its thread-safe counters and recorder over it).
///
/// A value-to-value conversion: thread-safe.
extension LoopSummary {
    /// The summary of `snapshot`: its loop, state, phase, clock and counters, its waiting posts by site, and its
    /// timers, the soonest ``timerLimit`` of them (``timersScheduled`` counts them all). Durations are in
    /// milliseconds to the microsecond; a timer whose deadline has passed has a negative `dueInMs`, even by less than
    /// a microsecond.
    ///
    /// The snapshot's `loop`, `Kind` or `Kind(name)` (`MainLoop`, `EventLoop(io)`), gives ``kind`` and ``name``.
    package init(_ snapshot: LoopSnapshot) {
        let (kind, name) = Self.kindAndName(snapshot.loop)
        self.init(name: name, kind: kind, state: snapshot.state.description)
        phase = snapshot.phase.description
        iterations = snapshot.counters.iterations
        nowMs = Self.milliseconds(snapshot.now.nanoseconds)
        postsRun = snapshot.counters.postsRun
        postsPending = snapshot.pendingPosts
        postsRejected = snapshot.counters.postsRejected
        postsDiscarded = snapshot.counters.postsDiscarded
        timersFired = snapshot.counters.timersFired
        settleDeliveries = snapshot.counters.settleDeliveries
        settlePending = snapshot.pendingSettleNotifications
        idlePending = snapshot.pendingIdleBodies
        timersScheduled = snapshot.timers.count
        timers = snapshot.timers.prefix(Self.timerLimit).map { timer in
            let untilDue = timer.deadline.nanoseconds &- snapshot.now.nanoseconds
            return LoopSummary.Timer(
                site: timer.site?.location,
                label: timer.label,
                // A due timer stays negative when it is due by less than a microsecond.
                dueInMs: untilDue < 0 && untilDue > -1_000 ? -0.001 : Self.milliseconds(untilDue),
                repeating: timer.interval != nil,
                firings: timer.firings,
                intervalMs: timer.interval.map { Self.milliseconds($0.mainlineNanoseconds) },
                skippedFirings: timer.skippedFirings
            )
        }
        pendingPostsBySite = snapshot.pendingPostsBySite.map { entry in
            LoopSummary.PendingSite(site: entry.site.location, label: entry.site.label, count: entry.count)
        }
    }

    /// `nanoseconds` in milliseconds, truncated to the microsecond.
    private static func milliseconds(_ nanoseconds: Int64) -> Double {
        Double(nanoseconds / 1_000) / 1_000
    }

    /// `("EventLoop", "io")` for `EventLoop(io)`, `("MainLoop", nil)` for `MainLoop`.
    private static func kindAndName(_ loop: String) -> (kind: String, name: String?) {
        guard loop.hasSuffix(")"), let open = loop.firstIndex(of: "(") else { return (loop, nil) }
        return (String(loop[..<open]), String(loop[loop.index(after: open)..<loop.index(before: loop.endIndex)]))
    }
}
