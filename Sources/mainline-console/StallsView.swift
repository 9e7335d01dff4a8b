import MainlineInspectorSchema

/// Every loop's last stalls, newest first: the job that held the loop (site, label, how long, how long ago), the loop
/// thread's backtrace folded to the frames of the process's own code, and what the loop did just before.
enum StallsView {
    static func lines(_ snapshot: InspectorSnapshot) -> [String] {
        var lines: [String] = []
        for loop in snapshot.loops {
            for stall in loop.stalls.reversed() {
                if !lines.isEmpty { lines.append("") }
                let reported = Formatting.duration(milliseconds: stall.durationMs)
                // A stall is reported while it lasts, with how long it had held the loop by then; the watchdog writes
                // its total into the report once it has seen it end.
                var held = "at least \(reported)"
                var notes = [stall.kind ?? "job"]
                if let total = stall.totalMs {
                    held = Formatting.duration(milliseconds: total)
                    notes.append("reported at \(reported)")
                } else if stall.ended == false {
                    notes.append("no end seen yet")
                }
                lines.append(
                    "STALL of \(held) on loop \(loop.name ?? "?"), \(Formatting.duration(milliseconds: stall.ageMs)) ago "
                        + "(\(notes.joined(separator: "; ")))"
                )
                lines.append("  site:  \(stall.site ?? "(unknown)")")
                lines.append("  label: \(stall.label ?? "-")")
                if !stall.backtrace.isEmpty {
                    lines.append("  backtrace:")
                    lines.append(contentsOf: BacktraceFolding.lines(stall.backtrace).map { "    " + $0 })
                }
                if !stall.lastEvents.isEmpty {
                    lines.append("  last events:")
                    lines.append(contentsOf: stall.lastEvents.map { "    " + RecorderEventLine.line($0) })
                }
            }
        }
        return lines.isEmpty ? ["no stalls recorded"] : lines
    }
}
