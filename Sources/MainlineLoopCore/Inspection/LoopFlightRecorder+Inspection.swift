import MainlineInspectorSchema

/// What an inspector shows of a loop's flight recorder (schema 1; the article "Seeing inside a running loop" lists the
/// fields): busy share, loop delay, the slowest recent work by site, the last stalls, and the events themselves.
///
/// All operations here are thread-safe: the inspector's thread calls them while the loop runs (or is stalled).
extension LoopFlightRecorder {
    /// Writes the fields of a loop's summary that come from its recorder into `summary`, read at `now` (the loop's
    /// clock, nanoseconds).
    package func fillInspectionSummary(_ summary: inout LoopSummary, now: UInt64) {
        let events = events()
        summary.busyPercent = Self.busyPercent(events, now: now)
        summary.delay = delaySummary()
        summary.running = runningSummary(now: now)
        summary.stalls = stallsKept.suffix(5).map { Self.stallSummary($0, now: now) }
        summary.slowest = Self.slowest(events, now: now, limit: 10)
        summary.recorder = LoopSummary.Recorder(capacityBytes: settings.capacityBytes, events: events.count)
    }

    /// The recorder's events for a dump, oldest first, with their age at `now`, under the loop's name.
    package func inspectionRecording(name: String, kind: String, state: String, now: UInt64) -> LoopRecording {
        LoopRecording(
            name: name,
            kind: kind,
            state: state,
            capacityBytes: settings.capacityBytes,
            events: events().map { Self.eventSummary($0, now: now) }
        )
    }

    // MARK: Parts

    /// The share of the last second the loop spent in its phases, from the intervals the recorder wrote (the one
    /// being summed is not written yet: up to 10 ms of activity behind). A stall in progress shows in `running`.
    static func busyPercent(_ events: [Event], now: UInt64) -> Double {
        let window: UInt64 = 1_000_000_000
        var busy: Int64 = 0
        for event in events where now &- event.nanoseconds <= window {
            if case .interval(let interval) = event.kind { busy += interval.busy.mainlineNanoseconds }
        }
        return min(100, (Double(busy) / Double(window) * 1_000).rounded() / 10)
    }

    private func delaySummary() -> LoopSummary.Delay {
        let delay = self.delay
        return LoopSummary.Delay(
            p50Ms: Self.milliseconds(delay.percentile(0.5)),
            p99Ms: Self.milliseconds(delay.percentile(0.99)),
            maxMs: Self.milliseconds(delay.longest),
            samples: delay.samples,
            buckets: delay.buckets.map { bucket in
                LoopSummary.Bucket(upToMs: bucket.upTo.map { Self.milliseconds($0) }, count: bucket.count)
            }
        )
    }

    /// The work running now, when a stall watchdog watches the loop (it stamps each piece of work); `nil` otherwise
    /// or when the loop is idle.
    private func runningSummary(now: UInt64) -> LoopSummary.Running? {
        guard let running = monitorForInspection?.snapshot() else { return nil }
        return LoopSummary.Running(
            site: running.site?.location,
            label: running.site?.label ?? "\(running.label)",
            forMs: Self.milliseconds(since: running.callbackStart, now: now)
        )
    }

    static func stallSummary(_ stall: LoopStall, now: UInt64) -> LoopSummary.Stall {
        LoopSummary.Stall(
            site: stall.site?.location,
            label: stall.label,
            kind: stall.kind == .callback ? "callback" : "iteration",
            durationMs: milliseconds(stall.duration),
            ended: stall.total != nil,
            totalMs: stall.total.map { milliseconds($0) },
            ageMs: milliseconds(since: stall.startNanoseconds, now: now),
            backtrace: backtraceLines(stall),
            lastEvents: stall.lastEvents.map { eventSummary($0, now: now) }
        )
    }

    /// The slow work the recorder holds, one entry per site (its longest), longest first.
    static func slowest(_ events: [Event], now: UInt64, limit: Int) -> [LoopSummary.SlowJob] {
        var bySite: [String: (work: SlowWork, at: UInt64, count: Int)] = [:]
        for event in events {
            guard case .slowWork(let work) = event.kind else { continue }
            let key = "\(work.kind)|\(work.site?.description ?? "")"
            let count = (bySite[key]?.count ?? 0) + 1
            if let known = bySite[key], known.work.duration >= work.duration {
                bySite[key] = (known.work, max(known.at, event.nanoseconds), count)
            } else {
                bySite[key] = (work, max(bySite[key]?.at ?? 0, event.nanoseconds), count)
            }
        }
        return bySite.values.sorted { $0.work.duration > $1.work.duration }.prefix(limit).map { entry in
            LoopSummary.SlowJob(
                site: entry.work.site?.location,
                label: entry.work.site?.label,
                kind: entry.work.kind.rawValue,
                durationMs: milliseconds(entry.work.duration),
                count: entry.count,
                runLength: entry.work.runLength,
                ageMs: milliseconds(since: entry.at, now: now)
            )
        }
    }

    static func eventSummary(_ event: Event, now: UInt64) -> RecorderEvent {
        let atMs = milliseconds(nanoseconds: event.nanoseconds)
        let ageMs = milliseconds(since: event.nanoseconds, now: now)
        switch event.kind {
        case .interval(let interval):
            var summary = RecorderEvent(atMs: atMs, ageMs: ageMs, kind: "iteration")
            summary.iterations = interval.iterations
            summary.wakeUps = interval.wakeUps
            summary.spanMs = milliseconds(interval.span)
            summary.busyMs = milliseconds(interval.busy)
            summary.timersMs = milliseconds(interval.timers)
            summary.postsMs = milliseconds(interval.posts)
            summary.settleMs = milliseconds(interval.settle)
            summary.idleMs = milliseconds(interval.idle)
            summary.longestMs = milliseconds(interval.longestIteration)
            summary.posts = interval.postsRun
            summary.timersFired = interval.timersFired
            summary.settleDeliveries = interval.settleDeliveries
            return summary
        case .slowWork(let work):
            var summary = RecorderEvent(atMs: atMs, ageMs: ageMs, kind: "slowJob")
            summary.jobKind = work.kind.rawValue
            summary.site = work.site?.location
            summary.label = work.site?.label
            summary.durationMs = milliseconds(work.duration)
            summary.runLength = work.runLength
            summary.sitesInRun = work.sitesInRun
            return summary
        case .stall(let stall):
            var summary = RecorderEvent(atMs: atMs, ageMs: ageMs, kind: "stall")
            summary.site = stall.site?.location
            summary.label = stall.label
            summary.stallKind = stall.kind == .callback ? "callback" : "iteration"
            summary.durationMs = milliseconds(stall.duration)
            summary.ended = stall.total != nil
            summary.totalMs = stall.total.map { milliseconds($0) }
            summary.backtrace = backtraceLines(stall)
            return summary
        case .mailboxDrops(let mailbox, let count):
            var summary = RecorderEvent(atMs: atMs, ageMs: ageMs, kind: "mailboxDrop")
            summary.mailbox = mailbox
            summary.count = count
            return summary
        }
    }

    /// The stall's backtrace, a line per frame (`#0 0x… Module.function() + 42 in binary`).
    static func backtraceLines(_ stall: LoopStall) -> [String] {
        guard let frames = stall.backtrace?.frames else { return [] }
        return frames.enumerated().map { "#\($0.offset) \($0.element)" }
    }

    package static func milliseconds(_ duration: Duration) -> Double {
        milliseconds(nanoseconds: UInt64(clamping: max(duration.mainlineNanoseconds, 0)))
    }

    /// How long before `now` the moment `moment` was, in milliseconds (both on the loop's clock, nanoseconds); 0 for a
    /// moment after `now`.
    ///
    /// A describer reads the clock once, before it reads what the loop stamps (its running job, its recorder), so
    /// that every age in one document counts from one instant; the loop goes on meanwhile, and a job can begin or an
    /// event be recorded after that read — by up to the time the describer waits for a loop's snapshot. Such a moment
    /// is no older than the document: 0, never a negative difference wrapped to 18,446,744,073,709 ms.
    package static func milliseconds(since moment: UInt64, now: UInt64) -> Double {
        milliseconds(nanoseconds: moment < now ? now - moment : 0)
    }

    /// Milliseconds with three decimals (microsecond precision).
    package static func milliseconds(nanoseconds: UInt64) -> Double {
        (Double(nanoseconds) / 1_000).rounded() / 1_000
    }
}
