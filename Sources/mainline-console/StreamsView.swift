import MainlineInspectorSchema

/// The process's stream subscriptions and consumer group members (MainlinePostgres, the bus): how far behind their
/// stream's head each is — in events and in seconds, the figure Kafka users watch first — what a member holds, what was
/// handed out again, and the last resync.
enum StreamsView {
    static func lines(_ snapshot: InspectorSnapshot) -> [String] {
        guard !snapshot.streams.isEmpty else {
            return ["no stream subscriptions or group members (made since the inspector started)"]
        }
        return Formatting.table(
            ["STREAM", "GROUP", "POSITION", "HEAD", "LAG", "LAG S", "HELD", "REDELIVERED", "LAST RESYNC", "CONNECTED"],
            snapshot.streams.map { stream in
                [
                    stream.stream ?? "-",
                    stream.group ?? "(subscription)",
                    stream.position.map(String.init) ?? "-",
                    stream.head.map(String.init) ?? "-",
                    stream.lagEvents.map(String.init) ?? "-",
                    stream.lagSeconds == nil ? "-" : Formatting.decimal(stream.lagSeconds),
                    stream.held.map(String.init) ?? "-",
                    stream.redelivered.map(String.init) ?? "-",
                    resync(stream),
                    stream.connected.map { $0 ? "yes" : "no" } ?? "-",
                ]
            }
        )
    }

    /// `lastDelivered..resumesAfter` of the last resync, or `-`.
    private static func resync(_ stream: StreamSummary) -> String {
        guard let from = stream.lastResyncFrom, let to = stream.lastResyncTo else { return "-" }
        return "\(from)..\(to)"
    }
}
