import MainlineLoop

/// An event whose triggers coalesce: observers are notified once, in the loop's settle phase, however many
/// triggers came before — from any thread.
///
/// ``trigger(if:)`` is thread-safe; everything else must be called on the main actor.
///
/// ```swift
/// @MainActor final class Counter {
///     private let changed = LazySimpleEvent()
///     var didChange: SimpleEventObservable { changed }
///     private(set) var value = 0
///     func increment() { value += 1; changed.trigger() }
/// }
///
/// var token: SimpleEventToken?
/// counter.didChange.addObserver(&token) { _ in print(counter.value) }
/// counter.increment(); counter.increment(); counter.increment()
/// // … the current callback returns; the loop settles and prints "3" once.
/// ```
///
/// Rules (DESIGN.md §3):
/// - A trigger is **never** delivered inside `trigger()`: from the loop's own callbacks it is delivered in the
///   settle phase of the current iteration; from anywhere else (another thread, code outside the loop's phases),
///   in that of the next one. Triggers from other threads wake the loop once, however many arrive.
/// - All triggers before a delivery produce exactly one notification. A trigger *during* delivery schedules one
///   more; settle runs it in a later round, so a self-retriggering event cannot starve timers or I/O.
/// - Deliveries are glitch-free: lower ``settleHeight`` first. A ``SimpleEventProxy`` over this event sits one
///   height above it and is notified after it.
/// - An event deallocated while a delivery is pending delivers nothing.
@MainActor
public class LazySimpleEvent: SimpleEventObservable {
    private nonisolated let trigger: _CoalescingTrigger
    private let observers = _EventObservers(owner: "LazySimpleEvent")

    /// The dependency height its notifications are delivered at; see ``SimpleEventObservable/settleHeight``.
    public let settleHeight: Int

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - loop: The loop whose settle phase delivers the notifications; the main loop unless a test passes a
    ///     `TestLoop`.
    ///   - height: The dependency height: 0 for a source. An event that you trigger from observers of other lazy
    ///     events should sit one above the highest of them, as ``SimpleEventProxy`` does by itself.
    ///   - fileID: The creator's file: its deliveries' site in the flight recorder (leave the default).
    ///   - line: The creator's line (leave the default).
    public init(
        loop: any Loop = MainLoop.main,
        height: Int = 0,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) {
        self.trigger = _CoalescingTrigger(loop: loop)
        self.settleHeight = max(height, 0)
        trigger.attach(
            SettleNotification(height: settleHeight, fileID: fileID, line: line) { [weak self] in self?.deliver() }
        )
    }

    /// The loop that delivers this event's notifications. Thread-safe.
    public nonisolated var loop: any Loop { trigger.loop }

    /// Adds a block observer; see ``SimpleEventObservable/addObserver(_:_:)``.
    public func addObserver(_ token: inout SimpleEventToken?, _ block: @escaping ObserverBlock) {
        token = _SimpleEventSubscription(observers: observers, loop: loop, block: block)
    }

    /// Adds a delegate-style observer, weakly; see ``SimpleEventObservable/addObserver(_:)-(SimpleEventObserver)``.
    public func addObserver(_ observer: SimpleEventObserver) {
        observers.add(object: observer, as: "a SimpleEventObserver")
    }

    /// Removes a delegate-style observer; see ``SimpleEventObservable/removeObserver(_:)``.
    public func removeObserver(_ observer: SimpleEventObserver) {
        observers.remove(object: observer, as: "a SimpleEventObserver")
    }

    /// Schedules one notification of the observers, in the loop's settle phase, if `condition` is true.
    ///
    /// Thread-safe, from any thread; never blocks and never notifies synchronously. While a notification is
    /// pending, a trigger costs one atomic load.
    ///
    /// - Parameter condition: Whether this call triggers the event.
    public nonisolated func trigger(if condition: Bool = true) {
        if condition { trigger.fire() }
    }

    // Isolated: the observers learn on the main actor that no notification will come again (their async sequences
    // finish), wherever the last reference went.
    isolated deinit {
        observers.eventDidGo()
    }

    private func deliver() {
        trigger.willDeliver()
        observers.notify(self)
    }
}
