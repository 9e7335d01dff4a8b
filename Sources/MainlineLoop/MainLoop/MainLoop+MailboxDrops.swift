extension MainLoop {
    /// Counts the drops of the mailbox called `name` in the loop's metrics, while the loop is instrumented (see
    /// ``instrument(_:)``). Must be called on the main actor; a named mailbox calls it at its `init`.
    ///
    /// - Parameters:
    ///   - name: The mailbox's name, the `mailbox` dimension of `mainline_mailbox_drops`.
    ///   - dropped: Reads the mailbox's drop count so far; returns `nil` once the mailbox is gone.
    @MainActor
    public func reportMailboxDrops(named name: String, _ dropped: @escaping @Sendable () -> Int?) {
        core.addDropSource(name: name, dropped: dropped)
    }
}
