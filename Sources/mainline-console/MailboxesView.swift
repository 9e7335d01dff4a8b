import MainlineInspectorSchema

/// The mailboxes the process made since its inspector started: how full each is and what it dropped.
enum MailboxesView {
    static func lines(_ snapshot: InspectorSnapshot) -> [String] {
        guard !snapshot.mailboxes.isEmpty else { return ["no mailboxes (made since the inspector started)"] }
        return Formatting.table(
            ["NAME", "KIND", "DEPTH", "CAPACITY", "DROPPED", "COALESCED"],
            snapshot.mailboxes.map {
                [
                    $0.name ?? "(unnamed)", $0.kind ?? "-", Formatting.integer($0.depth),
                    $0.capacity.map(String.init) ?? "unbounded", Formatting.integer($0.dropped),
                    Formatting.integer($0.coalesced),
                ]
            }
        )
    }
}
