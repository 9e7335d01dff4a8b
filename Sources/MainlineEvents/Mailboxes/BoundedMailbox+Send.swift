import MainlineLoop

extension BoundedMailbox {
    /// Places `value` at the end; with ``OverflowPolicy/suspend``, waits first while the mailbox is full.
    ///
    /// Callable from any task. With ``OverflowPolicy/suspend``: when there is room (and so nobody waits), the value is
    /// placed at once, without suspending or allocating. When the mailbox is full, the sender waits behind the senders
    /// already waiting — first come, first served — until the consumer's ``take()`` or ``takeAll()`` hands it a slot;
    /// then its value is in the mailbox (counted as accepted, delivered in order) and `send` returns `true`.
    ///
    /// With the other policies `send` never waits: it does exactly what ``place(_:)`` does and returns its result.
    ///
    /// ```swift
    /// let mailbox = BoundedMailbox<Event>(capacity: 64, overflow: .suspend)
    /// // In a producer task:
    /// for await event in source {
    ///     try await mailbox.send(event)   // backpressure: waits while the loop is 64 events behind
    /// }
    /// ```
    ///
    /// - Parameter value: The value.
    /// - Returns: What ``place(_:)`` returns: `false` only when the policy is ``OverflowPolicy/reject`` and the mailbox
    ///   is full. Always `true` with ``OverflowPolicy/suspend`` (when it returns).
    /// - Throws: With ``OverflowPolicy/suspend`` only, and only instead of waiting or while waiting:
    ///   `CancellationError` when the task is cancelled before its value was accepted (a task already cancelled throws
    ///   instead of starting to wait; a sender cancelled after it was handed room returns normally, its value
    ///   delivered); `LoopStopped` when the mailbox's loop has stopped, or stops while the sender waits — nobody will
    ///   take values any more. Either way the value was not accepted, will not be delivered, and is counted in
    ///   ``MailboxCounts/rejected``; the sender still has it.
    /// - Note: Cancellation is checked only when the sender must wait: a value that fits is placed even by a
    ///   cancelled task, as ``place(_:)`` would.
    @discardableResult
    @inlinable
    public func send(_ value: Value) async throws -> Bool {
        guard overflowPolicy == .suspend else { return place(value) }
        // Fast path, under the lock once: room means nobody waits (see `_BoundedStorage`), so the value goes in.
        // Otherwise take a ticket for the slow path, which re-checks under the lock before waiting.
        let ticket = store.withLock { storage, counts -> UInt64 in
            guard storage.ring.isFull else {
                storage.ring.append(value)
                counts.accepted += 1
                return 0
            }
            return storage.waiters.nextTicket()
        }
        if ticket == 0 {
            store.event.trigger()
            return true
        }
        try await store.waitToSend(value, ticket: ticket)
        return true
    }
}

extension _MailboxStore {
    /// Waits until `value` has been moved into the ring by a take (or fits already), or throws if the task is
    /// cancelled or the loop stops first. `ticket` identifies the waiter to its cancellation handler.
    ///
    /// The races, each decided under the lock: a cancellation that comes before the sender is queued is seen by the
    /// queuing itself (`Task.isCancelled` is set before the handler runs, and the handler takes the lock after the
    /// queuing or finds the waiter queued); one that comes after a take handed the sender room finds no waiter and does
    /// nothing (the send succeeded). Every continuation is resumed exactly once, outside the lock, by whoever removed
    /// its waiter from the queue (or never queued it).
    @usableFromInline
    func waitToSend<Value>(_ value: Value, ticket: UInt64) async throws where Storage == _BoundedStorage<Value> {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = withLock { storage, counts -> _SendOutcome in
                    if Task.isCancelled {
                        counts.rejected += 1
                        return .failed(CancellationError())
                    }
                    if storage.waiters.isClosed {
                        counts.rejected += 1
                        return .failed(LoopStopped())
                    }
                    // Room appeared since the fast path looked: nobody waits then, so this sender goes first.
                    guard storage.ring.isFull else {
                        storage.ring.append(value)
                        counts.accepted += 1
                        return .placed
                    }
                    storage.waiters.append(.init(ticket: ticket, value: value, continuation: continuation))
                    counts.waiting += 1
                    return .waiting(count: storage.waiters.count, hook: storage.waiters.didStartWaiting)
                }
                switch outcome {
                case .waiting(let count, let hook):
                    hook?(count)
                case .placed:
                    event.trigger()
                    continuation.resume()
                case .failed(let error):
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let waiter = withLock { storage, counts -> _SendWaiters<Value>.Waiter? in
                guard let waiter = storage.waiters.remove(ticket: ticket) else { return nil }
                counts.waiting -= 1
                counts.rejected += 1
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The loop stopped: nobody will take values again. Every waiting sender throws `LoopStopped`, and later senders
    /// that would wait throw it at once. On the loop, from its shutdown hook.
    @MainActor
    func closeWaiters<Value>() where Storage == _BoundedStorage<Value> {
        let waiting = withLock { storage, counts in
            storage.waiters.isClosed = true
            let waiting = storage.waiters.removeAll()
            counts.waiting -= waiting.count
            counts.rejected += waiting.count
            return waiting
        }
        for waiter in waiting { waiter.continuation.resume(throwing: LoopStopped()) }
    }
}

/// What a sender found when it took the lock to wait: it is queued (and how many wait now, for the tests' hook), or
/// room appeared and its value went in, or it must throw.
@usableFromInline
enum _SendOutcome {
    case waiting(count: Int, hook: (@Sendable (Int) -> Void)?)
    case placed
    case failed(any Error)
}
