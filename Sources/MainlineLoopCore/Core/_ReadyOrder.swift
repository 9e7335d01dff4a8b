/// The one seam through which a main-actor loop asks "which ready item next?" where the package's rules allow more
/// than one order: posts from different producers (each producer's own posts stay in posting order), timers due at the
/// same instant, and settle notifications of the same height in one round.
///
/// Real loops have none (`_LoopScheduler.order` is `nil`) and run their items in the order they are stored: posting
/// order, scheduling order, request order. A loop with an order reads it once per phase (per settle height), never per
/// post, and then runs that phase through the order's answers (`_LoopScheduler+Order.swift`,
/// `_LoopCore+OrderedTimers.swift`, `_SettleQueue`). `TestLoop`'s schedules are the orders.
///
/// Called only where the loop runs (the main actor for the loops of `_LoopCore`), one call at a time.
package protocol _ReadyOrder: AnyObject, Sendable {
    /// The producer of the next job the post phase takes from the queue, asked once per job in queue order: jobs of
    /// one producer run in their queue order, jobs of different producers in the order ``choose(_:among:)`` says.
    func nextPostProducer() -> UInt64

    /// Which of `candidates` runs next: an index into it. Asked for every item the phase runs, a single candidate
    /// included (so that an order sees everything the loop ran, in order).
    ///
    /// - Parameters:
    ///   - kind: The phase asking.
    ///   - candidates: The ready items, in the order the loop stores them (the first is what a real loop runs): each
    ///     with an identity that stays the same while it waits (a producer, a timer, a notification) and its site.
    func choose(_ kind: _ReadyKind, among candidates: [_ReadyCandidate]) -> Int
}

/// The phase that asks a ``_ReadyOrder``. A value; thread-safe.
package enum _ReadyKind: String, Sendable {
    case post
    case timer
    case settle
    /// A job of a task of an exploration run (`_TaskLane`), asked by `TestLoop`'s async stepping.
    case task
}

/// One ready item, as an order sees it. A value; thread-safe.
package struct _ReadyCandidate: Sendable, Equatable {
    /// Stays the same while the item waits: a producer (posts), a timer, a notification.
    package var id: UInt64
    /// Where the item comes from.
    package var site: LoopSite
    /// What names the item in a schedule's log, after its kind, instead of its site (a task's number in its run: `"2"`);
    /// `nil` to name it by its site.
    package var name: String?

    /// Creates a candidate. Callable from any thread.
    package init(id: UInt64, site: LoopSite, name: String? = nil) {
        self.id = id
        self.site = site
        self.name = name
    }

    /// The identity of `object`, for ``id``. Callable from any thread.
    package static func id(of object: AnyObject) -> UInt64 {
        UInt64(UInt(bitPattern: ObjectIdentifier(object).hashValue))
    }
}
