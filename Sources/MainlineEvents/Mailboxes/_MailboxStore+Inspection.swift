import MainlineInspectorSchema
import MainlineLoop

// What a mailbox shows an inspector (`LoopInspector`): its counts, read under the store's lock on the inspector's
// thread, so a stalled loop does not hide them.
extension _MailboxStore {
    /// Registers the store with the inspector's registry, if an inspector has been started; otherwise does nothing,
    /// at the cost of one atomic load. Called once, at the end of a mailbox's `init`.
    ///
    /// Thread-safe.
    ///
    /// - Parameters:
    ///   - kind: `bounded`, `latest` or `keyed`.
    ///   - capacity: How many values can wait; `nil` for a mailbox without a bound.
    ///   - overflow: What a full bounded mailbox does with a new value (`dropNewest`, …); `nil` for the others.
    ///   - replaces: Whether a newer value replaces one not yet taken (latest, keyed): its drops are then coalesced
    ///     values rather than an overflow policy's.
    func registerForInspection(kind: String, capacity: Int?, overflow: String?, replaces: Bool) {
        let registry = _InspectionRegistry.shared
        guard registry.isActive else { return }
        // The store, not the mailbox, is the entry: it is what the describer reads, and it is `Sendable`, so the
        // inspector's thread may hold it for a moment.
        registry.register(self, in: .mailboxes) { [weak self] _ -> MailboxSummary? in
            guard let self else { return nil }
            let counts = snapshot
            return MailboxSummary(
                name: name,
                kind: kind,
                depth: counts.pending,
                capacity: capacity,
                dropped: counts.dropped,
                coalesced: replaces ? counts.dropped : 0,
                accepted: counts.accepted,
                rejected: counts.rejected,
                delivered: counts.delivered,
                waiting: counts.waiting,
                overflow: overflow
            )
        }
    }
}

extension _InspectionRegistry.Category {
    /// `BoundedMailbox`, `LatestMailbox`, `KeyedMailbox`: the inspector's `mailboxes`.
    package static let mailboxes = Self("mailboxes")
}
