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

    /// The loop that ``endFromAnyThread()`` finishes the ending on: the event's; `nil` for an event that has none
    /// (`SimpleEvent`), whose endings finish on the main loop, which hosts the main actor the event lives on (looked up
    /// only then, so that adding an observer never creates the main loop). Immutable.
    private nonisolated let loop: (any Loop)?

    init(observers: _EventObservers, loop: (any Loop)?, block: @escaping SimpleEventObservable.ObserverBlock) {
        self.observers = observers
        self.loop = loop
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
    /// list, and the block is released, on the loop (`_endOnLoop`: at once inside one of its phases, else in a job
    /// posted to it), as every observation ended from another thread.
    package nonisolated func endFromAnyThread() {
        entry.markEnded()
        _endOnLoop(loop ?? MainLoop.main) { self.remove() }
    }

    isolated deinit {
        remove()
    }
}
