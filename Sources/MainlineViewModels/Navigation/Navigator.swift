/// Performs navigation actions of one type: whatever shows a destination in a service — a coordinator, a
/// terminal screen, a client session — or, in tests, ``RecordingNavigator``. `MainlineCoordinators`'
/// `CoordinatorNavigator` is the one that shows destinations through coordinators and their stacks.
///
/// Must be used on the main actor.
///
/// A view model holds an `any Navigator<Action>` and asks it to navigate; the navigator decides how:
///
/// ```swift
/// @MainActor final class OrdersScreen: Navigator {
///     func navigate(_ action: OrdersNavigation) throws(NavigationError) {
///         switch action {
///         case .checkout(let bundle): try showCheckout(bundle)
///         case .help: showHelp()
///         }
///     }
/// }
///
/// let navigator: any Navigator<OrdersNavigation> = OrdersScreen()
/// if !navigator.navigateWithSuccess(.help) { log("no help screen") }
/// navigator.navigateOrElse(.checkout(bundle)) { error in show(error) }
/// ```
///
/// Only ``navigate(_:)`` is a requirement; ``navigateWithSuccess(_:)`` and ``navigateOrElse(_:onFailure:)`` are
/// built on it.
///
/// A protocol rather than a type: upstream Kaluga's `Navigator` is a platform class that maps actions to
/// screens. On Linux every host maps them its own way (a coordinator pushes, a terminal redraws, a test records),
/// and a protocol lets each be one without a wrapper, while a view model still stores any of them as
/// `any Navigator<Action>`.
@MainActor
public protocol Navigator<Action> {
    /// The actions this navigator performs.
    associatedtype Action: NavigationAction

    /// Performs `action`: shows its destination, passing it the action's bundle.
    ///
    /// - Parameter action: Where to go, with its data.
    /// - Throws: ``NavigationError`` when the navigator did not navigate; nothing was shown then.
    func navigate(_ action: Action) throws(NavigationError)
}

extension Navigator {
    /// Performs `action`, reporting whether it worked instead of throwing.
    ///
    /// - Parameter action: Where to go, with its data.
    /// - Returns: `true` when the navigator navigated, `false` when it threw.
    public func navigateWithSuccess(_ action: Action) -> Bool {
        do {
            try navigate(action)
            return true
        } catch {
            return false
        }
    }

    /// Performs `action`, calling `onFailure` with the error instead of throwing.
    ///
    /// - Parameters:
    ///   - action: Where to go, with its data.
    ///   - onFailure: Called once, before this returns, if the navigator threw; not called otherwise.
    public func navigateOrElse(_ action: Action, onFailure: (NavigationError) -> Void) {
        do {
            try navigate(action)
        } catch {
            onFailure(error)
        }
    }
}
