import MainlineLoop

/// What a consumer takes from a thread-safe mailbox, as an `AsyncSequence`: `values` of ``BoundedMailbox`` and
/// ``LatestMailbox``, `batches` of ``KeyedMailbox``.
///
/// Made on the main actor by those properties. All operations on `MailboxSequence` are thread-safe: it may be iterated
/// from any task; the mailbox is always taken from on the main actor. Iterated on the main actor (the loop),
/// `for await` runs on it throughout (`next(isolation:)`, SE-0421) and never hops to the global executor and back.
///
/// ```swift
/// let jobs = BoundedMailbox<Job>(capacity: 1_000, overflow: .reject)
/// Task { @MainActor in
///     for await job in jobs.values { scheduler.start(job) }   // in order, one element per job
/// }
/// ```
///
/// - **Pulled, not pushed.** Each element is taken from the mailbox (`take()`, or `takeAll()` for batches) when the
///   consumer asks for it; when nothing waits, the consumer is woken by the mailbox's `event` — the same observer
///   mechanism as everywhere. So the sequence buffers **nothing**: values wait in the mailbox, under its capacity and
///   overflow policy, counted in its ``MailboxCounts`` (`delivered` counts what the consumer got). A slow consumer
///   does not grow memory, and a mailbox whose `take()` frees room for waiting producers works unchanged.
/// - **Finishes** (returns `nil`) when the mailbox is freed — every producer let it go and the consumer holds no
///   reference of its own (nor to its `event`). Values still waiting go with the mailbox, as they would with an
///   observer.
/// - **Cancellation** of the iterating task finishes it at once (`nil`) and removes its observer; values not taken
///   stay in the mailbox, counted as pending.
/// - **Two iterators** — of one sequence or of two — compete: each value is taken by one of them, none twice. Cancelling
///   one iterator of a sequence finishes that sequence's other iterators too.
public struct MailboxSequence<Element: Sendable>: AsyncSequence, Sendable {
    /// The sequence never throws.
    public typealias Failure = Never

    let wakeups: _ObserverWakeups<Void>
    /// Takes one element from the mailbox, held weakly; `nil` when nothing waits or the mailbox is gone.
    let take: @MainActor @Sendable () -> Element?

    /// Subscribes to `event` and takes elements with `take`. Main actor.
    @MainActor
    init(event: SimpleEventObservable, take: @escaping @MainActor @Sendable () -> Element?) {
        wakeups = _ObserverWakeups(event)
        self.take = take
    }

    /// Returns an iterator over what the mailbox delivers. Thread-safe.
    public func makeAsyncIterator() -> Iterator {
        Iterator(wakeups: wakeups, take: take)
    }

    /// Iterates ``MailboxSequence``. Use it from one task at a time.
    public struct Iterator: AsyncIteratorProtocol {
        /// The iterator never throws.
        public typealias Failure = Never

        let wakeups: _ObserverWakeups<Void>
        let take: @MainActor @Sendable () -> Element?

        /// Takes the next element, waiting on the caller's isolation until the mailbox has one; `nil` once the
        /// sequence finished.
        ///
        /// Callable from any isolation; on the main actor it stays there.
        ///
        /// - Parameter actor: The caller's isolation, passed by `for await`.
        /// - Returns: The next element, or `nil` when the mailbox was freed or the task cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await wakeups.next(isolation: actor, taking: take)
        }

        /// Takes the next element; see ``next(isolation:)``, which `for await` calls instead. Callable from any
        /// isolation, from which it hops to the global executor.
        ///
        /// - Returns: The next element, or `nil` once the sequence finished.
        public mutating func next() async -> Element? {
            await next(isolation: nil)
        }
    }
}
