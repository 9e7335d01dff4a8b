/// Every loop's last stalls, newest first: the job that held the loop (site, label, how long, how long ago), the loop
/// thread's backtrace, and what the loop did just before.
enum StallsView {
    static func lines(_ snapshot: InspectorSnapshot) -> [String] {
        var lines: [String] = []
        for loop in snapshot.loops {
            for stall in loop.stalls.reversed() {
                if !lines.isEmpty { lines.append("") }
                let job = stall.job
                // A stall is reported while it lasts: its duration is how long it had held the loop by then.
                lines.append(
                    "STALL of at least \(Formatting.duration(milliseconds: job.durationMs)) on loop \(loop.name), "
                        + "\(Formatting.duration(milliseconds: job.ageMs)) ago (\(job.kind ?? "job"))"
                )
                lines.append("  site:  \(job.site ?? "(unknown)")")
                lines.append("  label: \(job.label ?? "-")")
                if !stall.backtrace.isEmpty {
                    lines.append("  backtrace:")
                    lines.append(contentsOf: stall.backtrace.map { "    " + $0 })
                }
                if !stall.lastEvents.isEmpty {
                    lines.append("  last events:")
                    lines.append(contentsOf: stall.lastEvents.map { "    " + RecorderEvent.line($0) })
                }
            }
        }
        return lines.isEmpty ? ["no stalls recorded"] : lines
    }
}

/// One event of a flight recorder, as a line: its time and kind first, then its other fields.
enum RecorderEvent {
    static func line(_ event: [String: Any]) -> String {
        var parts: [String] = []
        if let at = event.number("atMs") { parts.append("at \(Formatting.decimal(at, 1)) ms") }
        parts.append(event.string("kind") ?? "event")
        for key in event.keys.sorted() where key != "atMs" && key != "kind" {
            let value = event[key].map { "\($0)" } ?? "null"
            parts.append("\(key)=\(value)")
        }
        return parts.joined(separator: " ")
    }
}
