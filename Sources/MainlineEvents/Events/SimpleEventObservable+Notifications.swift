import MainlineLoop

extension SimpleEventObservable {
    /// The event's notifications as an `AsyncSequence`: one element each time the event notifies its observers,
    /// finishing when the event is freed.
    ///
    /// Must be read on the main actor; the sequence may then be iterated from any task (see
    /// ``SimpleEventNotifications``).
    ///
    /// ```swift
    /// @MainActor func keepTitleUpdated(of cart: Cart) async {
    ///     for await _ in cart.didChange.notifications {
    ///         title = "\(cart.items.count) items"   // read the state: several changes may be one element
    ///     }
    ///     // The cart was freed (or the task cancelled).
    /// }
    /// ```
    ///
    /// Reading this property adds an observer (at once: notifications delivered from then on count), which is removed
    /// when the sequence finishes, when the task iterating it is cancelled, or when the sequence and its iterators are
    /// gone. Each read is a subscription of its own that sees every notification.
    public var notifications: SimpleEventNotifications {
        SimpleEventNotifications(wakeups: _ObserverWakeups(self))
    }
}

/// The notifications of a ``SimpleEventObservable``, as an `AsyncSequence` of `Void`: read the state on each element.
///
/// Made by ``SimpleEventObservable/notifications`` on the main actor. All operations on `SimpleEventNotifications` are
/// thread-safe: it may be iterated from any task. Iterated on the main actor (the loop), `for await` runs on it
/// throughout (`next(isolation:)`, SE-0421) and never hops to the global executor and back.
///
/// - **Coalesced as observers are.** It is one block observer of the event, so it sees the notifications an observer
///   added when it was read sees: however many triggers before a delivery, one element.
/// - **Buffering: at most one element.** A notification that arrives while the consumer is busy is kept as one pending
///   element; more notifications before the consumer asks again merge into it. Nothing is lost, since an element says
///   only "look at the state", and the consumer looks after all of them. So a slow consumer costs O(1) memory, and
///   sees fewer elements than an observer would only when it was not waiting for them.
/// - **Finishes** (returns `nil`) when the event is freed, after a pending element; for one of Mainline's events
///   (`SimpleEvent`, `LazySimpleEvent`, `SimpleEventProxy`), or a type of yours whose `addObserver` forwards to one of
///   them (then when that event is freed). A conformer that keeps its own observers never finishes it: cancel the
///   task.
/// - **Cancellation** of the iterating task finishes it at once (`nil`, dropping a pending element) and removes its
///   observer.
/// - **Two iterators** of one sequence share its subscription: each element goes to one of them (the one that waited
///   longest), and cancelling either finishes both. For two consumers that each see every notification, read
///   ``SimpleEventObservable/notifications`` twice.
public struct SimpleEventNotifications: AsyncSequence, Sendable {
    /// One notification.
    public typealias Element = Void
    /// The sequence never throws.
    public typealias Failure = Never

    let wakeups: _ObserverWakeups<Void>

    /// Returns an iterator over the notifications. Thread-safe; iterators of one sequence share its subscription.
    public func makeAsyncIterator() -> Iterator {
        Iterator(wakeups: wakeups)
    }

    /// Iterates ``SimpleEventNotifications``. Use it from one task at a time.
    public struct Iterator: AsyncIteratorProtocol {
        /// One notification.
        public typealias Element = Void
        /// The iterator never throws.
        public typealias Failure = Never

        let wakeups: _ObserverWakeups<Void>

        /// Waits for the next notification on the caller's isolation; `nil` once the sequence finished.
        ///
        /// Callable from any isolation; on the main actor it stays there.
        ///
        /// - Parameter actor: The caller's isolation, passed by `for await`.
        /// - Returns: `()` for a notification (one that arrived while nobody waited is returned at once), `nil` when
        ///   the event was freed or the task cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Void? {
            await wakeups.next(isolation: actor)
        }

        /// Waits for the next notification; see ``next(isolation:)``, which `for await` calls instead. Callable from
        /// any isolation, from which it hops to the global executor.
        ///
        /// - Returns: `()` for a notification, `nil` once the sequence finished.
        public mutating func next() async -> Void? {
            await next(isolation: nil)
        }
    }
}
