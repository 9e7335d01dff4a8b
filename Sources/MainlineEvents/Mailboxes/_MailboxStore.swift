import MainlineLoop

/// The shared machinery of the thread-safe mailboxes: their storage and counts under one lock, and the lazy event
/// that wakes the consumer.
///
/// All operations are thread-safe; ``event`` may be observed only on the main actor.
///
/// Inlinable, like the mailboxes' `place` and `take`: generic code that crosses the module boundary unspecialised
/// looks up type metadata on every call (measured: two thirds of `BoundedMailbox<Int>.place`).
@usableFromInline
final class _MailboxStore<Storage>: @unchecked Sendable {
    // @unchecked Sendable: `storage` and `counts` are read and written only while `lock` is held, and `Storage`
    // holds only `Sendable` values (each mailbox constrains its element types so).
    @usableFromInline let lock = _Lock()
    @usableFromInline var storage: Storage
    @usableFromInline var counts = MailboxCounts()
    /// Triggered after every accepted value; it coalesces, so the loop wakes once per delivery at most.
    @usableFromInline let event: LazySimpleEvent

    /// The mailbox's name for metrics, if it has one.
    let name: String?

    /// Creates the store. A named store reports its drops through `loop`'s metrics when it runs on a scheduling core
    /// (`MainLoop`, `TestLoop`: read once per loop iteration, only while the loop is instrumented); an unnamed one, or
    /// one on a loop of your own, costs the loop nothing.
    @MainActor init(_ storage: Storage, loop: any Loop, name: String?) {
        self.storage = storage
        self.event = LazySimpleEvent(loop: loop)
        self.name = name
        if let name {
            (loop as? any _LoopCoreOwner)?.core.addDropSource(name: name) { [weak self] in self?.snapshot.dropped }
        }
    }

    /// Runs `body` under the lock; triggers the event afterwards when `body` returns `true`.
    @inlinable
    func place(_ body: (inout Storage, inout MailboxCounts) -> Bool) -> Bool {
        let accepted = lock.withLock { body(&storage, &counts) }
        if accepted { event.trigger() }
        return accepted
    }

    /// Runs `body` under the lock.
    @inlinable
    func withLock<R>(_ body: (inout Storage, inout MailboxCounts) -> R) -> R {
        lock.withLock { body(&storage, &counts) }
    }

    /// A snapshot of the counts.
    @inlinable
    var snapshot: MailboxCounts { lock.withLock { counts } }
}
