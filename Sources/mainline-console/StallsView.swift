/// Every loop's last stalls, newest first: the job that held the loop (site, label, how long, how long ago), the loop
/// thread's backtrace folded to the frames of the process's own code, and what the loop did just before.
enum StallsView {
    static func lines(_ snapshot: InspectorSnapshot) -> [String] {
        var lines: [String] = []
        for loop in snapshot.loops {
            for stall in loop.stalls.reversed() {
                if !lines.isEmpty { lines.append("") }
                let job = stall.job
                let reported = Formatting.duration(milliseconds: job.durationMs)
                // A stall is reported while it lasts, with how long it had held the loop by then; the watchdog writes
                // its total into the report once it has seen it end.
                var held = "at least \(reported)"
                var notes = [job.kind ?? "job"]
                if let total = stall.totalMs {
                    held = Formatting.duration(milliseconds: total)
                    notes.append("reported at \(reported)")
                } else if stall.ended == false {
                    notes.append("no end seen yet")
                }
                lines.append(
                    "STALL of \(held) on loop \(loop.name), \(Formatting.duration(milliseconds: job.ageMs)) ago "
                        + "(\(notes.joined(separator: "; ")))"
                )
                lines.append("  site:  \(job.site ?? "(unknown)")")
                lines.append("  label: \(job.label ?? "-")")
                if !stall.backtrace.isEmpty {
                    lines.append("  backtrace:")
                    lines.append(contentsOf: BacktraceFolding.lines(stall.backtrace).map { "    " + $0 })
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

/// One event of a flight recorder, as a line: its time and kind first, then its other fields; a list (an earlier
/// stall's backtrace) as how many entries it has.
enum RecorderEvent {
    static func line(_ event: [String: Any]) -> String {
        var parts: [String] = []
        if let at = event.number("atMs") { parts.append("at \(Formatting.decimal(at, 1)) ms") }
        parts.append(event.string("kind") ?? "event")
        for key in event.keys.sorted() where key != "atMs" && key != "kind" {
            let value: String
            switch event[key] {
            case _ where event.bool(key) != nil: value = event.bool(key) == true ? "true" : "false"
            case let list as [Any]: value = "(\(list.count) entries)"
            case let object as [String: Any]: value = "(\(object.count) fields)"
            case let other?: value = "\(other)"
            case nil: value = "null"
            }
            parts.append("\(key)=\(value)")
        }
        return parts.joined(separator: " ")
    }
}
