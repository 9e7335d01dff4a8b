import MainlineLoop

extension KeyedMailbox {
    /// What ``takeAll()`` returns, each time the consumer asks and something waits: one element per take, never
    /// empty, one value per key in first-placed key order.
    ///
    /// Must be read on the main actor; the sequence may then be iterated from any task (see ``MailboxSequence``).
    ///
    /// ```swift
    /// let quotes = KeyedMailbox<String, Double>()
    /// Task { @MainActor in
    ///     for await batch in quotes.batches {
    ///         for (symbol, price) in batch { board.update(symbol, price) }
    ///     }
    ///     // The mailbox was freed (or the task cancelled).
    /// }
    /// ```
    ///
    /// The sequence finishes when the mailbox is freed (it holds the mailbox weakly) or the task is cancelled. Two
    /// consumers take turns: each batch goes to one of them.
    @MainActor public var batches: MailboxSequence<[(key: Key, value: Value)]> {
        MailboxSequence(event: event) { [weak self] in
            guard let batch = self?.takeAll(), !batch.isEmpty else { return nil }
            return batch
        }
    }
}
