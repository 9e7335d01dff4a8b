import MainlineEvents
import MainlineLoop

extension Disposable {
    /// Creates a disposable that ends the observation of `token`, so that a `SimpleEvent` observation can join
    /// observable ones in a ``DisposeBag``.
    ///
    /// All operations on the result are thread-safe, as on any `Disposable`.
    ///
    /// ```swift
    /// let bag = DisposeBag()
    /// Disposable(inbox.didChange.addObserver { _ in render() }!).addTo(bag)
    /// subject.observe { _ in render() }.addTo(bag)
    /// ```
    ///
    /// The disposable **owns** the token: the observation lasts until the disposable is disposed or released —
    /// releasing it releases the token, which ends its observation (the token's rule; see `SimpleEventToken`).
    /// Disposing it from another thread stops the observer at once and removes it on the event's loop (the main loop
    /// for a `SimpleEvent`), in a job posted there.
    ///
    /// - Parameter token: The token to own; hand over the only reference to it.
    public convenience init(_ token: SimpleEventToken) {
        let held = _HeldToken(token)
        self.init { held.end() }
    }
}

extension SimpleEventToken {
    /// Hands the token to `bag`, which ends its observation when the bag is disposed or released.
    ///
    /// Must be called on the main actor.
    ///
    /// - Parameter bag: The bag.
    /// - Returns: The ``Disposable`` that owns the token (see ``Disposable/init(_:)-(SimpleEventToken)``).
    @discardableResult
    public func addTo(_ bag: DisposeBag) -> Disposable {
        Disposable(self).addTo(bag)
    }
}

/// A token held by a `Disposable`.
final class _HeldToken: @unchecked Sendable {
    // @unchecked Sendable: `token` is only used on the main actor (in a job on the main loop), except Mainline's own
    // token's `endFromAnyThread()`, which is thread-safe.
    private let token: SimpleEventToken

    init(_ token: SimpleEventToken) {
        self.token = token
    }

    /// Ends the observation: at once for rounds; the entry leaves on the loop.
    func end() {
        if let token = token as? _SimpleEventSubscription {
            token.endFromAnyThread()
        } else {
            // A token of another kind can only be asked to `remove()`, on the main actor: on the main loop, which
            // hosts it, the way every other observation ends.
            _endOnLoop(MainLoop.main) { [self] in token.remove() }
        }
    }
}
