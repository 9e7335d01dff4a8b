import MainlineLoop

/// Something that tells its observers "I changed, take a look": the observable side of ``SimpleEvent``,
/// ``LazySimpleEvent`` and ``SimpleEventProxy``.
///
/// Must be used on the main actor.
///
/// Expose only this protocol to the users of your object and keep the event itself private, so that only your
/// code can trigger it:
///
/// ```swift
/// @MainActor final class Inbox {
///     private let changed = LazySimpleEvent()
///     var didChange: SimpleEventObservable { changed }
///     private(set) var unread = 0 { didSet { changed.trigger() } }
/// }
///
/// var token: SimpleEventToken?
/// inbox.didChange.addObserver(&token) { _ in print("unread: \(inbox.unread)") }
/// ```
///
/// Observers learn *that* something changed, not what: several changes may arrive as one notification, so
/// observers read the current state. Use a mailbox or a regular delegate when every value counts.
@MainActor
public protocol SimpleEventObservable: AnyObject {
    /// The block of a token observer; it receives the event it observes.
    typealias ObserverBlock = @MainActor (SimpleEventObservable) -> Void

    /// Adds `block` as an observer and stores its token in `token`, releasing (and so removing) whatever token
    /// the variable held before.
    ///
    /// Keep the token while interested: dropping it, or calling `remove()` on it, removes the observer, even in
    /// the middle of a notification round.
    ///
    /// - Parameters:
    ///   - token: Where the new token goes.
    ///   - block: What to run on each notification.
    func addObserver(_ token: inout SimpleEventToken?, _ block: @escaping ObserverBlock)

    /// Adds a delegate-style observer, held weakly. Remove it with ``removeObserver(_:)`` exactly once.
    ///
    /// - Parameter observer: The observer; adding the same instance twice is misuse (`observerAddedTwice`).
    func addObserver(_ observer: SimpleEventObserver)

    /// Removes a delegate-style observer added with ``addObserver(_:)-(SimpleEventObserver)``.
    ///
    /// - Parameter observer: The observer; removing one that was not added is misuse (`observerNotAdded`).
    func removeObserver(_ observer: SimpleEventObserver)

    /// The dependency height of the notifications this event delivers in the loop's settle phase: 0 for a source,
    /// one more than its highest source for a derived event (a proxy, a group observer).
    ///
    /// Settle delivers lower heights first, so something derived from several events is notified once, after all
    /// of them (`SettleNotification`). The default is 0.
    var settleHeight: Int { get }
}

extension SimpleEventObservable {
    /// The default dependency height: 0, a source.
    public var settleHeight: Int { 0 }

    /// Adds `block` as an observer and returns its token.
    ///
    /// Handy when the event is reached through an optional: `token = model?.didChange.addObserver { … }` always
    /// assigns, so the old subscription is dropped even when `model` is `nil`.
    ///
    /// - Parameter block: What to run on each notification.
    /// - Returns: The token; the observer stays installed while it lives.
    public func addObserver(_ block: @escaping ObserverBlock) -> SimpleEventToken? {
        var token: SimpleEventToken?
        addObserver(&token, block)
        return token
    }
}

/// Keeps an observer added with `addObserver(&token) { … }` installed: the observer is removed by
/// ``remove()`` or when the token is deallocated.
///
/// Must be used on the main actor.
///
/// A token holds what it observes, so it may safely outlive its event. Ending follows the rule shared with
/// `MainlineObservables`' `Disposable` (<doc:ObserverRules>): once ``remove()`` returns (or the token is released),
/// no round calls the observer, even one running now, and the list has let go of the block. A `Disposable` can own a
/// token, to put it in a `DisposeBag` beside observations of observables.
@MainActor
public protocol SimpleEventToken: AnyObject {
    /// Removes the observer. Idempotent; also happens when the token is deallocated.
    ///
    /// - Complexity: O(1) amortized.
    func remove()
}

/// A delegate-style observer of a ``SimpleEventObservable``.
///
/// Must be used on the main actor.
@MainActor
public protocol SimpleEventObserver: AnyObject {
    /// Called on each notification of an event the receiver observes.
    ///
    /// - Parameter event: The event, exactly the instance the observer was added to, so one observer can tell
    ///   several events apart.
    func simpleEventDidTrigger(_ event: SimpleEventObservable)
}
