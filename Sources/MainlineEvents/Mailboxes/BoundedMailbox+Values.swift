import MainlineLoop

extension BoundedMailbox {
    /// The values, in order, one element per value, each taken with ``take()`` when the consumer asks for it.
    ///
    /// Must be read on the main actor; the sequence may then be iterated from any task (see ``MailboxSequence``).
    ///
    /// ```swift
    /// let jobs = BoundedMailbox<Job>(capacity: 1_000, overflow: .reject)
    /// Task { @MainActor in
    ///     for await job in jobs.values { scheduler.start(job) }
    ///     // The mailbox was freed (or the task cancelled).
    /// }
    /// ```
    ///
    /// Values wait in the mailbox, not in the sequence, so its capacity and overflow policy hold while the consumer is
    /// busy. The sequence finishes when the mailbox is freed (it holds the mailbox weakly) or the task is cancelled.
    /// Two consumers take turns: each value goes to one of them.
    @MainActor public var values: MailboxSequence<Value> {
        MailboxSequence(event: event) { [weak self] in self?.take() }
    }
}
