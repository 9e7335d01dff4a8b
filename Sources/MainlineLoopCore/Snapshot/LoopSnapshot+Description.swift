extension LoopSnapshot: CustomStringConvertible {
    /// The snapshot for a log, on several lines: the loop and its state, posts (and where the waiting ones came from),
    /// settle, then one line per timer, soonest first, its deadline relative to ``now`` and where it was scheduled.
    ///
    /// ```text
    /// TestLoop: running, iteration 3 (timers), now 2.000 s
    ///   posts: 1 pending, 4 run, 0 rejected, 0 discarded
    ///     1 from App/Feed.swift:31
    ///   settle: 0 pending, 2 delivered
    ///   timers: 2 scheduled, 3 fired
    ///     in 0.250 s  heartbeat  every 1.000 s, fired 2  at App/Clock.swift:12
    ///     overdue 0.100 s  at App/Session.swift:40
    /// ```
    ///
    /// When idle bodies wait (``pendingIdleBodies``), an `idle: N pending` line follows the settle line.
    ///
    /// Durations are shown in seconds with three decimals (truncated to the millisecond); a timer whose deadline has
    /// passed but which has not fired yet is `overdue`. A repeating timer shows its period, how often it fired and,
    /// when it skipped firings, how many.
    public var description: String {
        var lines = [
            "\(loop): \(state), iteration \(iteration) (\(phase)), now \(Self.seconds(now.nanoseconds))",
            "  posts: \(pendingPosts) pending, \(counters.postsRun) run, \(counters.postsRejected) rejected, "
                + "\(counters.postsDiscarded) discarded",
            "  settle: \(pendingSettleNotifications) pending, \(counters.settleDeliveries) delivered",
            "  timers: \(timers.count) scheduled, \(counters.timersFired) fired",
        ]
        if pendingIdleBodies > 0 { lines.insert("  idle: \(pendingIdleBodies) pending", at: 3) }
        lines.insert(contentsOf: pendingPostsBySite.map { "    \($0.count) from \($0.site.location)" }, at: 2)
        for timer in timers {
            lines.append("    " + line(for: timer))
        }
        return lines.joined(separator: "\n")
    }

    private func line(for timer: Timer) -> String {
        let untilDue = timer.deadline.nanoseconds &- now.nanoseconds
        var line = untilDue >= 0 ? "in \(Self.seconds(untilDue))" : "overdue \(Self.seconds(0 &- untilDue))"
        if let label = timer.label { line += "  \(label)" }
        if let interval = timer.interval {
            line += "  every \(Self.seconds(interval.mainlineNanoseconds)), fired \(timer.firings)"
            if timer.skippedFirings > 0 { line += ", skipped \(timer.skippedFirings)" }
        }
        if let site = timer.site { line += "  at \(site.location)" }
        return line
    }

    /// `nanoseconds` as seconds with three decimals, truncated to the millisecond: `1.250 s`.
    package static func seconds(_ nanoseconds: Int64) -> String {
        let milliseconds = nanoseconds / 1_000_000
        let sign = milliseconds < 0 ? "-" : ""
        let magnitude = milliseconds.magnitude
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
    }
}
