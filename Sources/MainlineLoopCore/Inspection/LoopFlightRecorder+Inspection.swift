/// What an inspector shows of a loop's flight recorder (schema 1; the article "Seeing inside a running loop" lists the
/// fields): busy share, loop delay, the slowest recent work by site, the last stalls, and the events themselves.
///
/// All operations here are thread-safe: the inspector's thread calls them while the loop runs (or is stalled).
extension LoopFlightRecorder {
    /// The fields of a loop's summary that come from its recorder, read at `now` (the loop's clock, nanoseconds).
    package func inspectionSummary(now: UInt64) -> [(String, _InspectionValue)] {
        let events = events()
        return [
            ("busyPercent", .double(Self.busyPercent(events, now: now))),
            ("delay", delayValue()),
            ("running", runningValue(now: now)),
            ("stalls", .array(stallValues(now: now, limit: 5))),
            ("slowest", .array(Self.slowest(events, now: now, limit: 10))),
            ("recorder", .object([("capacityBytes", .int(settings.capacityBytes)), ("events", .int(events.count))])),
        ]
    }

    /// The recorder's events for a dump, oldest first, with their age at `now`.
    package func inspectionEvents(now: UInt64) -> _InspectionValue {
        .array(events().map { Self.eventValue($0, now: now) })
    }

    // MARK: Parts

    /// The share of the last second the loop spent in its phases, from the intervals the recorder wrote (the one
    /// being summed is not written yet: up to 10 ms of activity behind). A stall in progress shows in ``runningValue``.
    static func busyPercent(_ events: [Event], now: UInt64) -> Double {
        let window: UInt64 = 1_000_000_000
        var busy: Int64 = 0
        for event in events where now &- event.nanoseconds <= window {
            if case .interval(let interval) = event.kind { busy += interval.busy.mainlineNanoseconds }
        }
        return min(100, (Double(busy) / Double(window) * 1_000).rounded() / 10)
    }

    private func delayValue() -> _InspectionValue {
        let delay = self.delay
        return .object([
            ("p50Ms", .double(Self.milliseconds(delay.percentile(0.5)))),
            ("p99Ms", .double(Self.milliseconds(delay.percentile(0.99)))),
            ("maxMs", .double(Self.milliseconds(delay.longest))),
            ("samples", .int(delay.samples)),
            (
                "buckets",
                .array(
                    delay.buckets.map { bucket in
                        .object([
                            ("upToMs", bucket.upTo.map { .double(Self.milliseconds($0)) } ?? .null),
                            ("count", .int(bucket.count)),
                        ])
                    }
                )
            ),
        ])
    }

    /// The work running now, when a stall watchdog watches the loop (it stamps each piece of work); `null` otherwise
    /// or when the loop is idle.
    private func runningValue(now: UInt64) -> _InspectionValue {
        guard let running = monitorForInspection?.snapshot() else { return .null }
        return .object([
            ("site", .nullable(running.site?.location)),
            ("label", .string(running.site?.label ?? "\(running.label)")),
            ("forMs", .double(Self.milliseconds(since: running.callbackStart, now: now))),
        ])
    }

    private func stallValues(now: UInt64, limit: Int) -> [_InspectionValue] {
        stallsKept.suffix(limit).map { Self.stallValue($0, now: now) }
    }

    static func stallValue(_ stall: LoopStall, now: UInt64) -> _InspectionValue {
        .object([
            ("site", .nullable(stall.site?.location)),
            ("label", .string(stall.label)),
            ("kind", .string(stall.kind == .callback ? "callback" : "iteration")),
            ("durationMs", .double(milliseconds(stall.duration))),
            ("ended", .bool(stall.total != nil)),
            ("totalMs", stall.total.map { .double(milliseconds($0)) } ?? .null),
            ("ageMs", .double(milliseconds(since: stall.startNanoseconds, now: now))),
            ("backtrace", .array(backtraceLines(stall).map { .string($0) })),
            ("lastEvents", .array(stall.lastEvents.map { eventValue($0, now: now) })),
        ])
    }

    /// The slow work the recorder holds, one entry per site (its longest), longest first.
    static func slowest(_ events: [Event], now: UInt64, limit: Int) -> [_InspectionValue] {
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
            .object([
                ("site", .nullable(entry.work.site?.location)),
                ("label", .nullable(entry.work.site?.label)),
                ("kind", .string(entry.work.kind.rawValue)),
                ("durationMs", .double(milliseconds(entry.work.duration))),
                ("count", .int(entry.count)),
                ("runLength", .int(entry.work.runLength)),
                ("ageMs", .double(milliseconds(since: entry.at, now: now))),
            ])
        }
    }

    static func eventValue(_ event: Event, now: UInt64) -> _InspectionValue {
        var fields: [(String, _InspectionValue)] = [
            ("atMs", .double(milliseconds(nanoseconds: event.nanoseconds))),
            ("ageMs", .double(milliseconds(since: event.nanoseconds, now: now))),
        ]
        switch event.kind {
        case .interval(let interval):
            fields += [
                ("kind", .string("iteration")),
                ("iterations", .int(interval.iterations)),
                ("wakeUps", .int(interval.wakeUps)),
                ("spanMs", .double(milliseconds(interval.span))),
                ("busyMs", .double(milliseconds(interval.busy))),
                ("timersMs", .double(milliseconds(interval.timers))),
                ("postsMs", .double(milliseconds(interval.posts))),
                ("settleMs", .double(milliseconds(interval.settle))),
                ("idleMs", .double(milliseconds(interval.idle))),
                ("longestMs", .double(milliseconds(interval.longestIteration))),
                ("posts", .int(interval.postsRun)),
                ("timersFired", .int(interval.timersFired)),
                ("settleDeliveries", .int(interval.settleDeliveries)),
            ]
        case .slowWork(let work):
            fields += [
                ("kind", .string("slowJob")),
                ("jobKind", .string(work.kind.rawValue)),
                ("site", .nullable(work.site?.location)),
                ("label", .nullable(work.site?.label)),
                ("durationMs", .double(milliseconds(work.duration))),
                ("runLength", .int(work.runLength)),
                ("sitesInRun", .int(work.sitesInRun)),
            ]
        case .stall(let stall):
            fields += [
                ("kind", .string("stall")),
                ("site", .nullable(stall.site?.location)),
                ("label", .string(stall.label)),
                ("stallKind", .string(stall.kind == .callback ? "callback" : "iteration")),
                ("durationMs", .double(milliseconds(stall.duration))),
                ("ended", .bool(stall.total != nil)),
                ("totalMs", stall.total.map { .double(milliseconds($0)) } ?? .null),
                ("backtrace", .array(backtraceLines(stall).map { .string($0) })),
            ]
        case .mailboxDrops(let mailbox, let count):
            fields += [("kind", .string("mailboxDrop")), ("mailbox", .string(mailbox)), ("count", .int(count))]
        }
        return .object(fields)
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
