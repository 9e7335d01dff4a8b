import MainlineInspectorSchema

/// Every loop's pending timers, soonest first: when each is due, its period when it repeats, its loop and site; then,
/// for a loop that has more timers than its document lists (the soonest 50), how many more.
enum TimersView {
    static func lines(_ snapshot: InspectorSnapshot) -> [String] {
        let rows = snapshot.loops.flatMap { loop in
            (loop.timers ?? []).map { (loop: loop.name ?? "?", timer: $0) }
        }.sorted { ($0.timer.dueInMs ?? .infinity) < ($1.timer.dueInMs ?? .infinity) }
        let unlisted = snapshot.loops.compactMap { loop -> String? in
            let more = (loop.timersScheduled ?? 0) - (loop.timers?.count ?? 0)
            return more > 0 ? "loop \(loop.name ?? "?"): \(more) more timers, due later, not listed" : nil
        }
        guard !rows.isEmpty || !unlisted.isEmpty else { return ["no timers pending"] }
        return Formatting.table(
            ["DUE IN", "REPEATS", "LOOP", "SITE"],
            rows.map {
                [
                    Formatting.duration(milliseconds: $0.timer.dueInMs), repeats($0.timer), $0.loop,
                    Formatting.origin(site: $0.timer.site, label: $0.timer.label),
                ]
            }
        ) + unlisted
    }

    /// `every 250.0 ms` for a repeating timer whose period the document gives, `yes` or `no` otherwise.
    private static func repeats(_ timer: LoopSummary.Timer) -> String {
        if let interval = timer.intervalMs { return "every " + Formatting.duration(milliseconds: interval) }
        return timer.repeating.map { $0 ? "yes" : "no" } ?? "-"
    }
}
