import MainlineInspectorSchema

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
    /// when it skipped firings, how many. The soonest 50 timers are listed; with more, a last line says how many more
    /// there are (`… 950 more not shown`).
    ///
    /// The text is the inspector's: the snapshot's summary in the inspector's schema, rendered — the values an
    /// inspector shows of the loop, in the same words.
    public var description: String {
        LoopSummary(self).description
    }
}
