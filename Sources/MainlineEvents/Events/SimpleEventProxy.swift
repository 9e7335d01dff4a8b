import MainlineLoop

/// A lazy event that fires once whenever any of its source events fired: one observable for "something in
/// here changed".
///
/// Must be used on the main actor, except ``LazySimpleEvent/trigger(if:)``, which any thread may call.
///
/// ```swift
/// @MainActor final class Order {
///     private lazy var changed = SimpleEventProxy(events: customer.didChange, cart.didChange)
///     var didChange: SimpleEventObservable { changed }
/// }
/// ```
///
/// The proxy is a ``LazySimpleEvent`` one ``SimpleEventObservable/settleHeight`` above its highest source, so
/// sources that fire in the same loop iteration — synchronous or lazy, directly or through other proxies — make
/// it fire **once**, after all of them. It can also be triggered directly. Deallocating the proxy unsubscribes it
/// from its sources.
@MainActor
public final class SimpleEventProxy: LazySimpleEvent {
    private var tokens: [SimpleEventToken?] = []

    /// Creates a proxy over `events`.
    ///
    /// - Parameters:
    ///   - loop: The loop whose settle phase delivers the proxy's notifications.
    ///   - events: The sources; their set is fixed for the proxy's life.
    public init(loop: any Loop = MainLoop.main, events: [SimpleEventObservable]) {
        super.init(loop: loop, height: (events.map(\.settleHeight).max() ?? -1) + 1)
        tokens = events.map { source in source.addObserver { [weak self] _ in self?.trigger() } }
    }

    /// Creates a proxy over `events`.
    ///
    /// - Parameters:
    ///   - loop: The loop whose settle phase delivers the proxy's notifications.
    ///   - events: The sources; their set is fixed for the proxy's life.
    public convenience init(loop: any Loop = MainLoop.main, events: SimpleEventObservable...) {
        self.init(loop: loop, events: events)
    }
}
