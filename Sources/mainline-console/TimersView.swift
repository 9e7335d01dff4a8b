import MainlineInspectorSchema

/// Every loop's pending timers, soonest first.
enum TimersView {
    static func lines(_ snapshot: InspectorSnapshot) -> [String] {
        let rows = snapshot.loops.flatMap { loop in
            (loop.timers ?? []).map { (loop: loop.name ?? "?", timer: $0) }
        }.sorted { ($0.timer.dueInMs ?? .infinity) < ($1.timer.dueInMs ?? .infinity) }
        guard !rows.isEmpty else { return ["no timers pending"] }
        return Formatting.table(
            ["DUE IN", "REPEATS", "LOOP", "SITE"],
            rows.map {
                [
                    Formatting.duration(milliseconds: $0.timer.dueInMs),
                    $0.timer.repeating.map { $0 ? "yes" : "no" } ?? "-", $0.loop,
                    Formatting.origin(site: $0.timer.site, label: $0.timer.label),
                ]
            }
        )
    }
}
