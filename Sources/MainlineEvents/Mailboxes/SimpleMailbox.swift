import MainlineLoop

/// A box for one value: someone places a value, replacing what was there; someone else peeks at it or takes it
/// later. A step away from unbounded queues of events: act on the latest value when you get to it.
///
/// Must be used on the main actor. (For values coming from other threads, see ``LatestMailbox``,
/// ``BoundedMailbox`` and ``KeyedMailbox``.)
///
/// Changes are announced through a ``LazySimpleEvent`` owned by whoever hosts the mailbox. It must be lazy:
/// an observer that takes the value would otherwise change the box inside its own notification.
///
/// ```swift
/// @MainActor final class ToastViewModel {
///     private let changed = LazySimpleEvent()
///     var didChange: SimpleEventObservable { changed }
///     private(set) lazy var toast = SimpleMailbox<String>(event: changed)
/// }
///
/// viewModel.toast.replace("Saved")
/// // … in the observer, after settle:
/// if let message = viewModel.toast.take() { show(message) }
/// ```
///
/// | call | stores | triggers the event |
/// |---|---|---|
/// | ``take()`` | nothing | only if there was a value |
/// | ``replaceEvenIfSame(_:)`` | the value | always |
/// | ``placeIfFits(_:)`` | the value, only into an empty box | only when stored |
/// | ``replace(_:)`` (`Equatable`) | the value | only if different from what was there |
///
/// When `T` is itself optional, a stored `nil` is a value: ``hasValue`` is `true` and ``value`` is `.some(nil)`.
@MainActor
public final class SimpleMailbox<T> {
    private let event: LazySimpleEvent
    private var slot: T?

    /// Creates an empty mailbox announcing its changes through `event`.
    ///
    /// - Parameter event: The event to trigger; usually the host's own change event.
    public init(event: LazySimpleEvent) {
        self.event = event
    }

    /// The value in the box, if any; peeking leaves it there.
    public var value: T? { slot }

    /// Whether the box holds a value (also when that value is a `nil` of an optional `T`).
    public var hasValue: Bool { slot != nil }

    /// Takes the value out, leaving the box empty; triggers the event only if there was a value.
    ///
    /// - Returns: The value, or `nil` for an empty box.
    public func take() -> T? {
        guard let value = slot else { return nil }
        slot = nil
        event.trigger()
        return value
    }

    /// Stores `value`, replacing what was there, and triggers the event even if the value is the same.
    ///
    /// - Parameter value: The new value.
    public func replaceEvenIfSame(_ value: T) {
        slot = value
        event.trigger()
    }

    /// Stores `value` only if the box is empty, and then triggers the event.
    ///
    /// - Parameter value: The new value.
    /// - Returns: `true` if it was stored; `false` if the box already held a value (which stays).
    @discardableResult
    public func placeIfFits(_ value: T) -> Bool {
        guard slot == nil else { return false }
        slot = value
        event.trigger()
        return true
    }
}

extension SimpleMailbox where T: Equatable {
    /// Stores `value`, replacing what was there; triggers the event only if it differs from the value held (an
    /// empty box differs from every value).
    ///
    /// - Parameter value: The new value.
    public func replace(_ value: T) {
        let changed = slot.map { $0 != value } ?? true
        slot = value
        if changed { event.trigger() }
    }
}
