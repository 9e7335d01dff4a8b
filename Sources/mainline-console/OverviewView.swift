import MainlineInspectorSchema

/// The overview: per loop, its state, iterations per second, busy time, counters, the job running now, the loop-delay
/// percentiles and the histogram as a bar chart.
enum OverviewView {
    /// The widest bar of the histogram, in cells.
    static let barWidth = 40

    static func lines(_ snapshot: InspectorSnapshot, rates: IterationRates) -> [String] {
        guard !snapshot.loops.isEmpty else { return ["no loops described (the process serves no loop yet)"] }
        var lines: [String] = []
        for loop in snapshot.loops {
            if !lines.isEmpty { lines.append("") }
            lines.append("loop \(loop.name ?? "?")  \(loop.kind ?? "?")  \(loop.state ?? "")")
            let rate = rates.rate(of: loop).map { Formatting.decimal($0, 1) } ?? "…"
            lines.append(
                "  iterations \(Formatting.integer(loop.iterations))  \(rate)/s  busy \(Formatting.decimal(loop.busyPercent, 1))%"
            )
            lines.append(
                "  posts run \(Formatting.integer(loop.postsRun)) (pending \(Formatting.integer(loop.postsPending)))  "
                    + "timers fired \(Formatting.integer(loop.timersFired))  "
                    + "settle deliveries \(Formatting.integer(loop.settleDeliveries))"
            )
            if let running = loop.running {
                lines.append(
                    "  running now: \(Formatting.origin(site: running.site, label: running.label)) for "
                        + Formatting.duration(milliseconds: running.forMs)
                )
            }
            if let last = loop.stalls.last {
                lines.append(
                    "  stalls: \(loop.stalls.count), the last \(last.held) at "
                        + Formatting.origin(site: last.site, label: last.label)
                )
            }
            if let delay = loop.delay {
                lines.append(
                    "  loop delay  p50 \(Formatting.decimal(delay.p50Ms)) ms  p99 \(Formatting.decimal(delay.p99Ms)) ms  "
                        + "max \(Formatting.decimal(delay.maxMs)) ms  (\(Formatting.integer(delay.samples)) samples)"
                )
                lines.append(contentsOf: histogram(delay))
            }
        }
        return lines
    }

    /// One line per bucket, from the first that counted anything to the last: `    <= 0.016 ms |#####     | 3`.
    static func histogram(_ delay: LoopSummary.Delay) -> [String] {
        // The empty buckets below the fastest and above the slowest delay say nothing; the ones between do.
        guard let first = delay.buckets.firstIndex(where: { ($0.count ?? 0) > 0 }),
            let last = delay.buckets.lastIndex(where: { ($0.count ?? 0) > 0 })
        else { return [] }
        let buckets = delay.buckets[first...last]
        let maximum = buckets.map { $0.count ?? 0 }.max() ?? 0
        let labels = buckets.map { bucket in
            bucket.upToMs.map { "<= \(Formatting.decimal($0, 3)) ms" } ?? "> last"
        }
        let width = labels.map(\.count).max() ?? 0
        return zip(labels, buckets).map { label, bucket in
            "    " + String(repeating: " ", count: width - label.count) + label + " |"
                + Formatting.bar(bucket.count ?? 0, of: maximum, width: barWidth) + "| \(bucket.count ?? 0)"
        }
    }
}
