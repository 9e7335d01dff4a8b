import MainlineLoop

extension LatestMailbox {
    /// The latest value each time the consumer asks: one element per value taken with ``take()``; values replaced
    /// meanwhile are dropped and counted, as with an observer.
    ///
    /// Must be read on the main actor; the sequence may then be iterated from any task (see ``MailboxSequence``).
    ///
    /// ```swift
    /// let temperature = LatestMailbox<Double>()
    /// Task { @MainActor in
    ///     for await celsius in temperature.values { display.show(celsius) }
    ///     // The mailbox was freed (or the task cancelled).
    /// }
    /// ```
    ///
    /// The sequence finishes when the mailbox is freed (it holds the mailbox weakly) or the task is cancelled. Two
    /// consumers take turns: each value goes to one of them.
    @MainActor public var values: MailboxSequence<Value> {
        MailboxSequence(event: event) { [weak self] in self?.take() }
    }
}
