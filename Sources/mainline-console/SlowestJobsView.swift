import MainlineInspectorSchema

/// The slowest recent jobs of every loop, by site: how often each site was slow, its slowest and its latest.
enum SlowestJobsView {
    static func lines(_ snapshot: InspectorSnapshot) -> [String] {
        struct Site {
            var loop: String
            var origin: String
            var kind: String
            var count = 0
            var slowestMs = 0.0
            var youngestAgeMs: Double?
        }
        var sites: [String: Site] = [:]
        var order: [String] = []
        for loop in snapshot.loops {
            for job in loop.slowest {
                let origin = Formatting.origin(site: job.site, label: job.label)
                let key = loop.identity + "|" + origin
                if sites[key] == nil {
                    sites[key] = Site(loop: loop.name ?? "?", origin: origin, kind: job.kind ?? "-")
                    order.append(key)
                }
                sites[key]!.count += 1
                sites[key]!.slowestMs = max(sites[key]!.slowestMs, job.durationMs ?? 0)
                if let age = job.ageMs { sites[key]!.youngestAgeMs = min(sites[key]!.youngestAgeMs ?? age, age) }
            }
        }
        guard !order.isEmpty else { return ["no slow jobs recorded"] }
        let ranked = order.compactMap { sites[$0] }.sorted { $0.slowestMs > $1.slowestMs }
        return Formatting.table(
            ["SLOWEST", "TIMES", "LAST", "LOOP", "KIND", "SITE"],
            ranked.map {
                [
                    Formatting.duration(milliseconds: $0.slowestMs), String($0.count),
                    Formatting.duration(milliseconds: $0.youngestAgeMs) + " ago", $0.loop, $0.kind, $0.origin,
                ]
            }
        )
    }
}
