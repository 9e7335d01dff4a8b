extension LoopSummary: CustomStringConvertible {
    /// The loop for a log, on several lines — the text of `LoopSnapshot`'s description: the loop and its state, posts
    /// (and where the waiting ones came from), settle, then one line per timer, soonest first, its deadline relative
    /// to `nowMs` and where it was scheduled.
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
    /// An `idle: N pending` line follows the settle line when idle bodies wait; when `timers` lists fewer timers than
    /// are scheduled (``timerLimit``), a last line says how many more there are. Durations are in seconds with three
    /// decimals, truncated to the millisecond; a field the document does not carry (one of an older version) reads
    /// `-`. Thread-safe: it reads this value only.
    package var description: String {
        var lines = [
            "\(loopName): \(state ?? "-"), iteration \(iterations.map { String($0 + 1) } ?? "-") (\(phase ?? "-")), "
                + "now \(Self.seconds(milliseconds: nowMs))",
            "  posts: \(Self.count(postsPending)) pending, \(Self.count(postsRun)) run, "
                + "\(Self.count(postsRejected)) rejected, \(Self.count(postsDiscarded)) discarded",
        ]
        lines += (pendingPostsBySite ?? []).map { "    \(Self.count($0.count)) from \($0.site ?? "-")" }
        lines.append("  settle: \(Self.count(settlePending)) pending, \(Self.count(settleDeliveries)) delivered")
        if let idlePending, idlePending > 0 { lines.append("  idle: \(idlePending) pending") }
        let listed = timers ?? []
        let scheduled = timersScheduled ?? listed.count
        lines.append("  timers: \(scheduled) scheduled, \(Self.count(timersFired)) fired")
        lines += listed.map { "    " + Self.line(for: $0) }
        if scheduled > listed.count { lines.append("    … \(scheduled - listed.count) more not shown") }
        return lines.joined(separator: "\n")
    }

    /// `EventLoop(io)` for a loop of kind `EventLoop` named `io`; the kind alone when the name is missing or the
    /// kind's own.
    private var loopName: String {
        guard let name, name != kind else { return kind ?? name ?? "-" }
        guard let kind else { return name }
        return "\(kind)(\(name))"
    }

    private static func line(for timer: Timer) -> String {
        var line: String
        if let due = timer.dueInMs, due < 0 {
            line = "overdue \(seconds(milliseconds: -due))"
        } else {
            line = "in \(seconds(milliseconds: timer.dueInMs))"
        }
        if let label = timer.label { line += "  \(label)" }
        if let interval = timer.intervalMs {
            line += "  every \(seconds(milliseconds: interval)), fired \(count(timer.firings))"
            if let skipped = timer.skippedFirings, skipped > 0 { line += ", skipped \(skipped)" }
        } else if timer.repeating == true {
            line += "  repeating, fired \(count(timer.firings))"
        }
        if let site = timer.site { line += "  at \(site)" }
        return line
    }

    private static func count(_ value: Int?) -> String { value.map(String.init) ?? "-" }

    /// `milliseconds` as seconds with three decimals, truncated to the millisecond: `1.250 s`; `- s` for a value that
    /// is missing or too large to be a time.
    package static func seconds(milliseconds: Double?) -> String {
        guard let milliseconds, let whole = Int64(exactly: milliseconds.rounded(.towardZero)) else { return "- s" }
        let sign = whole < 0 ? "-" : ""
        let magnitude = whole.magnitude
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
    }
}
