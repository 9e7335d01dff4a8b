/// Something any thread may ask a loop to settle: the loop resolves it to its ``SettleNotification`` on the main
/// actor, in the settle phase of the iteration that sees it.
///
/// ``notificationToSettle()`` is called on the main actor; the request itself crosses threads (hence `Sendable`).
///
/// ``Loop/requestSettle(fromAnyThread:)`` takes one: a ``SettleNotification`` is its own request; an owner that may
/// have been cancelled or released by the time the loop looks (a lazy event's trigger) answers `nil` then, and
/// nothing is delivered.
///
/// ```swift
/// let notification = SettleNotification { print("settled") }
/// Thread.detachNewThread {
///     loop.requestSettle(fromAnyThread: notification)   // no posted job: the loop settles it this iteration
/// }
/// ```
public protocol SettleRequest: AnyObject, Sendable {
    /// The notification to mark pending, or `nil` when there is nothing to deliver any more. Called on the main
    /// actor, once per accepted request, in the loop's settle phase.
    @MainActor func notificationToSettle() -> SettleNotification?
}

extension SettleNotification: SettleRequest {
    /// The notification itself. Called on the main actor.
    public func notificationToSettle() -> SettleNotification? { self }
}
