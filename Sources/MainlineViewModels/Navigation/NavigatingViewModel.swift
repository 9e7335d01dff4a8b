import MainlineLoop

/// A view model that navigates: it holds the ``Navigator`` its host gave it and sends it typed actions.
///
/// Must be used on the main actor.
///
/// ```swift
/// enum OrdersNavigation: NavigationAction {
///     case details(orderID: Int)
///     var bundle: NavigationBundle? { nil }
/// }
///
/// final class OrdersViewModel: NavigatingViewModel<OrdersNavigation> {
///     func select(_ orderID: Int) {
///         navigator.navigateOrElse(.details(orderID: orderID)) { error in self.show(error) }
///     }
/// }
/// ```
///
/// Navigating from a cleared view model is misuse: ``navigate(_:)`` reports it to `Diagnostics`
/// (`transitionAfterClear`) and does not navigate.
@MainActor
open class NavigatingViewModel<Action: NavigationAction>: BaseViewModel {
    /// Where navigation actions go: a coordinator, a terminal host, a `RecordingNavigator` in tests.
    public let navigator: any Navigator<Action>

    /// Creates a view model that navigates with `navigator`.
    ///
    /// - Parameters:
    ///   - navigator: The navigator.
    ///   - loop: The loop it lives on.
    public init(navigator: any Navigator<Action>, loop: any Loop = MainLoop.main) {
        self.navigator = navigator
        super.init(loop: loop)
    }

    /// Sends `action` to the navigator, unless the view model has been cleared.
    ///
    /// - Parameter action: Where to go.
    /// - Returns: `true` if the navigator performed it; `false` if it threw, or the view model is cleared.
    @discardableResult
    public func navigate(_ action: Action) -> Bool {
        guard state != .cleared else {
            Diagnostics.report(
                .transitionAfterClear,
                "A cleared \(type(of: self)) tried to navigate. A cleared view model is finished; its host should be gone. Not navigating."
            )
            return false
        }
        return navigator.navigateWithSuccess(action)
    }
}
