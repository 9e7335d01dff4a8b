import MainlineLoop

/// The token of a block observer: keeps the block in its event's observer list while it lives.
///
/// Must be used on the main actor (its `deinit` hops there when the last reference goes elsewhere), except
/// ``endFromAnyThread()``.
@MainActor
package final class _SimpleEventSubscription: SimpleEventToken {
    // Strong: the token may outlive its event, and must still be able to remove itself.
    private let observers: _EventObservers
    /// Its entry; ended (flagged) by `remove()` or `endFromAnyThread()`. Immutable, so other threads may flag it.
    private nonisolated let entry: _EventObservers.Entry

    init(observers: _EventObservers, block: @escaping SimpleEventObservable.ObserverBlock) {
        self.observers = observers
        self.entry = observers.add(block: block)
    }

    package func remove() {
        observers.remove(entry)
    }

    /// Ends the observation from any thread: no round calls the block once this returns; the entry leaves its
    /// list, and the block is released, on the main actor (a `Task` hops there: a synchronous event has no loop of
    /// its own to post to).
    package nonisolated func endFromAnyThread() {
        entry.markEnded()
        Task { @MainActor in self.remove() }
    }

    isolated deinit {
        remove()
    }
}
