import MainlineLoop

/// An event that notifies its observers synchronously, inside ``trigger(if:)``.
///
/// Must be used on the main actor.
///
/// ```swift
/// let changed = SimpleEvent()
/// var token: SimpleEventToken?
/// changed.addObserver(&token) { _ in print("changed") }
///
/// changed.trigger()                      // prints "changed" before returning
/// changed.coalescingNotifications {
///     changed.trigger()
///     changed.trigger()
/// }                                      // prints "changed" once, here
/// ```
///
/// Synchronous delivery has a classic trap: an observer that triggers the event again (directly or through
/// other objects) starts a nested round while observers later in the outer round have not yet seen the first
/// one. That is misuse, reported to `Diagnostics` as `nestedNotification` (release builds run it depth-first,
/// as upstream). Prefer ``LazySimpleEvent``, which delivers in the loop's settle phase and never nests.
@MainActor
public final class SimpleEvent: SimpleEventObservable {
    private let observers = _EventObservers(owner: "SimpleEvent")
    // Unchecked exclusivity: main-actor state that no access holds across a call out; the dynamic checks were a
    // measurable part of a synchronous notification (Benchmarks/HISTORY.md, fan-out).
    /// Marked by a trigger, cleared when the observers are notified.
    @exclusivity(unchecked) private var isTriggered = false
    /// The depth of nested `coalescingNotifications` blocks.
    @exclusivity(unchecked) private var coalescingDepth = 0

    /// Creates an event with no observers. Callable from any thread; everything else is main-actor only.
    public nonisolated init() {}

    /// Adds a block observer; see ``SimpleEventObservable/addObserver(_:_:)``.
    public func addObserver(_ token: inout SimpleEventToken?, _ block: @escaping ObserverBlock) {
        // A synchronous event has no loop: an ending from another thread finishes on the main loop.
        token = _SimpleEventSubscription(observers: observers, loop: nil, block: block)
    }

    /// Adds a delegate-style observer, weakly; see ``SimpleEventObservable/addObserver(_:)-(SimpleEventObserver)``.
    public func addObserver(_ observer: SimpleEventObserver) {
        observers.add(object: observer, as: "a SimpleEventObserver")
    }

    /// Removes a delegate-style observer; see ``SimpleEventObservable/removeObserver(_:)``.
    public func removeObserver(_ observer: SimpleEventObserver) {
        observers.remove(object: observer, as: "a SimpleEventObserver")
    }

    /// Marks the event triggered when `condition` is true, then notifies the observers if it is marked — now,
    /// or at the end of the outermost ``coalescingNotifications(block:)`` running.
    ///
    /// `trigger(if: false)` never clears a trigger made earlier in a coalescing block.
    ///
    /// - Parameter condition: Whether this call triggers the event.
    public func trigger(if condition: Bool = true) {
        isTriggered = isTriggered || condition
        notifyIfNeeded()
    }

    /// Runs `block`, holding back notifications until it ends; however often the event is triggered inside,
    /// the observers are notified at most once, when the outermost such block ends.
    ///
    /// Blocks nest. If `block` throws, the pending notification is still delivered before the error propagates.
    ///
    /// - Parameter block: The batch of changes.
    public func coalescingNotifications(block: () throws -> Void) rethrows {
        coalescingDepth += 1
        defer {
            coalescingDepth -= 1
            notifyIfNeeded()
        }
        try block()
    }

    // Isolated: the observers learn on the main actor that no notification will come again (their async sequences
    // finish), wherever the last reference went.
    isolated deinit {
        observers.eventDidGo()
    }

    private func notifyIfNeeded() {
        guard isTriggered && coalescingDepth == 0 else { return }
        isTriggered = false
        observers.notify(self)
    }
}
