import StreamWire

/// The printed tables of one invocation: Markdown, so they paste into `Benchmarks/HISTORY.md` as they are.
enum Table {
    /// Milliseconds with two decimals.
    static func ms(_ nanoseconds: Int64) -> String {
        let hundredths = (nanoseconds + 5_000) / 10_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// A rate, rounded to whole events per second.
    static func rate(_ perSecond: Double) -> String { "\(Int(perSecond.rounded()))" }

    /// A ratio with two decimals.
    static func ratio(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// A load average pair, before → after.
    static func load(_ load: (before: Double?, after: Double?)) -> String {
        func one(_ value: Double?) -> String { value.map { ratio($0) } ?? "?" }
        return "\(one(load.before))→\(one(load.after))"
    }

    /// Lost / duplicated / out of order (`—` where the peer has no order to check).
    static func books(_ result: PhaseResult) -> String {
        "\(result.lost) / \(result.books.duplicated) / \(result.books.outOfOrder.map { "\($0)" } ?? "—")"
    }

    /// The latency table.
    static func latency(_ results: [PhaseResult], settings: Settings) -> String {
        var lines = [
            "Latency at \(settings.rate) events/s, open loop (\(settings.warmUp) s warm-up, \(settings.seconds) s measured); "
                + "ms from the publish call to the receiver",
            "",
            "| peer | events | p50 | p90 | p99 | max | lost / dup / out of order | publisher late p99 | load 1 min |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for result in results {
            let latency = result.latency
            lines.append(
                "| \(result.peer.rawValue) | \(latency.sorted.count) | \(ms(latency.at(0.5))) | \(ms(latency.at(0.9))) "
                    + "| \(ms(latency.at(0.99))) | \(ms(latency.maximum)) | \(books(result)) "
                    + "| \(ms(result.report.lateP99)) | \(load(result.load)) |"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// Where each peer's time goes at the fixed rate: the publishing call, and (Mainline) the parts before and after the
    /// mailbox.
    static func breakdown(_ results: [PhaseResult]) -> String {
        var lines = [
            "Where the time goes (ms, p50 / p99 of the measured events)",
            "",
            "| peer | publish call (to commit) | publish call → placed by the reader | placed → observer on the loop |",
            "|---|---|---|---|",
        ]
        for result in results {
            func pair(_ percentiles: Percentiles) -> String {
                percentiles.sorted.isEmpty ? "—" : "\(ms(percentiles.at(0.5))) / \(ms(percentiles.at(0.99)))"
            }
            let call = "\(ms(result.report.callP50)) / \(ms(result.report.callP99))"
            lines.append("| \(result.peer.rawValue) | \(call) | \(pair(result.beforeMailbox)) | \(pair(result.hop)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The sustained-rate table.
    static func sustained(_ results: [PhaseResult], settings: Settings) -> String {
        var lines = [
            "Sustained rate, one stream, \(settings.tasks) publishing tasks as fast as they can "
                + "(\(settings.sustainedWarmUp) s warm-up, \(settings.sustainedSeconds) s measured); batched: "
                + "\(settings.batchedTasks) tasks, \(settings.batch) event\(settings.batch == 1 ? "" : "s") per call",
            "",
            "| peer | published/s | delivered/s | lag at end (ms) | kept up | lost / dup / out of order | load 1 min |",
            "|---|---|---|---|---|---|---|",
        ]
        for result in results {
            lines.append(
                "| \(result.peer.rawValue) | \(rate(result.publishedPerSecond)) | \(rate(result.deliveredPerSecond)) "
                    + "| \(result.lagAtEnd.map { ms($0) } ?? "—") | \(result.keptUp ? "yes" : "no") | \(books(result)) "
                    + "| \(load(result.load)) |"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// Mainline against the `NOTIFY` peer, when both ran.
    static func ratios(latency: [PhaseResult], sustained: [PhaseResult]) -> String? {
        func of(_ peer: Peer, _ results: [PhaseResult]) -> PhaseResult? { results.first { $0.peer == peer } }
        guard let mainline = of(.mainline, latency), let notify = of(.notify, latency) else { return nil }
        var parts = [
            "p50 \(ratio(Double(mainline.latency.at(0.5)) / Double(notify.latency.at(0.5))))×",
            "p99 \(ratio(Double(mainline.latency.at(0.99)) / Double(notify.latency.at(0.99))))×",
        ]
        if let mainline = of(.mainline, sustained), let notify = of(.notify, sustained) {
            parts.append("sustained rate \(ratio(mainline.deliveredPerSecond / notify.deliveredPerSecond))×")
        }
        if let batched = of(.batched, sustained), let notify = of(.notify, sustained) {
            parts.append("batched sustained rate \(ratio(batched.deliveredPerSecond / notify.deliveredPerSecond))×")
        }
        return "Mainline / NOTIFY: " + parts.joined(separator: ", ")
    }
}
