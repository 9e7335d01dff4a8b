import MainlineLoop

/// The shared machinery of the thread-safe mailboxes: their storage and counts under one lock, and the lazy event
/// that wakes the consumer.
///
/// All operations are thread-safe; ``event`` may be observed only on the main actor.
final class _MailboxStore<Storage>: @unchecked Sendable {
    // @unchecked Sendable: `storage` and `counts` are read and written only while `lock` is held, and `Storage`
    // holds only `Sendable` values (each mailbox constrains its element types so).
    private let lock = _Lock()
    private var storage: Storage
    private var counts = MailboxCounts()
    /// Triggered after every accepted value; it coalesces, so the loop wakes once per delivery at most.
    let event: LazySimpleEvent

    @MainActor init(_ storage: Storage, loop: any Loop) {
        self.storage = storage
        self.event = LazySimpleEvent(loop: loop)
    }

    /// Runs `body` under the lock; triggers the event afterwards when `body` returns `true`.
    func place(_ body: (inout Storage, inout MailboxCounts) -> Bool) -> Bool {
        let accepted = lock.withLock { body(&storage, &counts) }
        if accepted { event.trigger() }
        return accepted
    }

    /// Runs `body` under the lock.
    func withLock<R>(_ body: (inout Storage, inout MailboxCounts) -> R) -> R {
        lock.withLock { body(&storage, &counts) }
    }

    /// A snapshot of the counts.
    var snapshot: MailboxCounts { lock.withLock { counts } }
}
