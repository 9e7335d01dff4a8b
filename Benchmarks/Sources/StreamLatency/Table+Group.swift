/// The group mode's table.
extension Table {
    /// Whether member 1 was killed: `no` without a kill; `not reached` when it never got to its stop (the other member
    /// handled the backlog first, as can happen with a small one).
    static func killed(_ result: GroupResult) -> String {
        result.killsOne ? (result.killedAt == nil ? "not reached" : "member 1") : "no"
    }

    /// Events handled by two members, for each peer without and with a `kill -9`, and the ratio.
    static func group(_ results: [GroupResult], settings: Settings) -> String {
        var lines = [
            "Consumer group beside a FOR UPDATE SKIP LOCKED queue: \(settings.groupEvents) events written beforehand, "
                + "2 member processes, batches of \(settings.groupBatch) (group window / LIMIT k), group lease "
                + "\(settings.groupLease) s; events/s from the first handling until the database shows every event "
                + "acknowledged (committed); with a kill, the time includes the wait for the takeover",
            "",
            "| peer | kill -9 | events/s | time (ms) | mean batch | handled by member 1 / 2 | lost | handled twice "
                + "| redelivered (deliveryCount > 1) | takeover after the kill (ms) | load 1 min |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for result in results {
            let perSecond = result.killsOne ? "—" : result.perSecond.map { rate($0) } ?? "—"
            let time = result.duration.map { ms($0) } ?? "did not drain"
            let members = result.handledPerMember.map { "\($0)" }.joined(separator: " / ")
            let takeover = result.killsOne ? result.takeover.map { ms($0) } ?? "— (none held)" : "—"
            lines.append(
                "| \(result.peer.rawValue) | \(killed(result)) | \(perSecond) | \(time) "
                    + "| \(ratio(result.meanBatch)) | \(members) | \(result.lost) | \(result.handledTwice) "
                    + "| \(result.redelivered.map { "\($0)" } ?? "—") | \(takeover) | \(load(result.load)) |"
            )
        }
        lines += [
            "",
            "What it cost per 100 events handled: transactions and rows written (pg_stat_database, from before the "
                + "members started until their backends were gone, the measuring process's statements left out), and "
                + "CPU ms of the two member processes and of their PostgreSQL backends (/proc, from the go until drained; "
                + "not with a kill)",
            "",
            "| peer | kill -9 | transactions | rows inserted | rows updated | rows deleted | CPU ms: members "
                + "| CPU ms: backends |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for result in results {
            func per100(_ count: Int64) -> String { ratio(Double(count) * 100 / Double(max(result.events, 1))) }
            func cpu(_ seconds: Double?) -> String {
                seconds.map { ratio($0 * 1_000 * 100 / Double(max(result.events, 1))) } ?? "—"
            }
            let activity = result.activity
            lines.append(
                "| \(result.peer.rawValue) | \(killed(result)) | \(per100(activity.transactions)) "
                    + "| \(per100(activity.inserted)) | \(per100(activity.updated)) | \(per100(activity.deleted)) "
                    + "| \(cpu(result.memberCPU)) | \(cpu(result.backendCPU)) |"
            )
        }
        func clean(_ peer: GroupPeer) -> Double? {
            results.first { $0.peer == peer && !$0.killsOne }?.perSecond
        }
        if let mainline = clean(.mainline), let queue = clean(.skipLocked) {
            lines += ["", "Mainline group / skip-locked: events/s \(ratio(mainline / queue))×"]
        }
        func backends(_ peer: GroupPeer) -> Double? {
            results.first { $0.peer == peer && !$0.killsOne }?.backendCPU
        }
        if let mainline = backends(.mainline), let queue = backends(.skipLocked), queue > 0 {
            lines.append("Mainline group / skip-locked: database backends' CPU per event \(ratio(mainline / queue))×")
        }
        for peer in GroupPeer.allCases {
            let kills = results.filter { $0.peer == peer && $0.killsOne && $0.killedAt != nil }
            let takeovers = kills.compactMap(\.takeover).sorted()
            guard !kills.isEmpty else { continue }
            let median = takeovers.isEmpty ? "—" : ms(takeovers[(takeovers.count - 1) / 2])
            let maximum = takeovers.last.map { ms($0) } ?? "—"
            lines.append(
                "\(peer.rawValue): takeover after kill -9 over \(kills.count) kills (\(takeovers.count) with events held): "
                    + "median \(median) ms, max \(maximum) ms"
            )
        }
        return lines.joined(separator: "\n")
    }
}
