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

    /// The entry of the block ``whenEventGoes(_:)`` installed, if any. Protected by the main actor.
    private var endEntry: _ObserverList<_Block<Void>>.Entry?

    package func remove() {
        observers.remove(entry)
        if let endEntry {
            observers.removeEndObserver(endEntry)
            self.endEntry = nil
        }
    }

    /// Runs `body` once, on the main actor, when the event observed is freed (at once if it already was), unless the
    /// token is removed first. Replaces a block installed earlier. What the async sequences finish on.
    package func whenEventGoes(_ body: @escaping @MainActor () -> Void) {
        if let endEntry { observers.removeEndObserver(endEntry) }
        endEntry = nil
        endEntry = observers.addEndObserver(body)
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
