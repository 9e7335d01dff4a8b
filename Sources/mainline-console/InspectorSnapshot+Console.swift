import MainlineInspectorSchema

extension LoopSummary {
    /// What tells two samples of one loop apart from another loop's: its name and kind.
    var identity: String { "\(name ?? "?")/\(kind ?? "")" }
}

extension LoopSummary.Stall {
    /// `309.0 ms` once it ended; `≥ 109.1 ms`, the watchdog's lower bound at detection, until then.
    var held: String {
        if let totalMs { return Formatting.duration(milliseconds: totalMs) }
        return "≥ " + Formatting.duration(milliseconds: durationMs)
    }
}

/// One event of a flight recorder, as a line: its time and kind first, then its other fields by name; a list (an
/// earlier stall's backtrace) as how many entries it has.
enum RecorderEventLine {
    /// The line of `event`: `at 5.0 ms stall backtrace=(42 entries) durationMs=120.0 ended=true label=earlier`.
    static func line(_ event: RecorderEvent) -> String {
        var parts: [String] = []
        if let at = event.atMs { parts.append("at \(Formatting.decimal(at, 1)) ms") }
        parts.append(event.kind ?? "event")
        // The schema's own fields, by the names the document gives them: the stored properties are the coding keys.
        var fields: [(key: String, value: String)] = []
        for child in Mirror(reflecting: event).children {
            guard let key = child.label, key != "atMs", key != "kind", key != "ageMs" else { continue }
            switch child.value {
            case let list as [String]?: if let list { fields.append((key, "(\(list.count) entries)")) }
            case let flag as Bool?: if let flag { fields.append((key, flag ? "true" : "false")) }
            case let number as Double?: if let number { fields.append((key, "\(number)")) }
            case let number as Int?: if let number { fields.append((key, "\(number)")) }
            case let text as String?: if let text { fields.append((key, text)) }
            default: continue
            }
        }
        parts += fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return parts.joined(separator: " ")
    }
}
