/// Something a view model depends on that needs the host while the view model is resumed: a connection's
/// writer, a screen's renderer (upstream Kaluga's `LifecycleSubscribable`).
///
/// Must be used on the main actor. A ``LifecycleManager`` subscribes every dependency the view model lists in
/// ``LifecycleSubscribableViewModel/lifecycleSubscribables`` when its host appears, and unsubscribes them when it
/// disappears.
@MainActor
public protocol LifecycleSubscribable: AnyObject {
    /// The host appeared: use it until ``unsubscribe()``.
    ///
    /// - Parameter host: The host, as the ``LifecycleManager`` was given it.
    func subscribe(_ host: AnyObject)

    /// The host disappeared: stop using it.
    func unsubscribe()
}

/// A view model with dependencies that need its host while resumed.
///
/// Must be used on the main actor.
@MainActor
public protocol LifecycleSubscribableViewModel: BaseViewModel {
    /// The dependencies to subscribe while the host is visible.
    var lifecycleSubscribables: [LifecycleSubscribable] { get }
}
