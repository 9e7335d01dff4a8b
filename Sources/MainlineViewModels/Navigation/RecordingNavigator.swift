/// A navigator for tests: records every action it is asked to perform, in order, and throws when told to.
///
/// Must be used on the main actor. `RecordingNavigator` is a test double, not a navigator for production hosts: it
/// lives beside ``Navigator`` so that tests of view models need only `MainlineViewModels` (and `MainlineTesting`,
/// which depends on the loop layer alone, for the loop).
///
/// ```swift
/// @MainActor @Test func checkoutNavigatesWithTheOrder() throws {
///     let navigator = RecordingNavigator<OrdersNavigation>()
///     let model = OrdersViewModel(navigator: navigator)
///     model.checkout(orderID: 1_042)
///     #expect(navigator.actions.count == 1)
///     let bundle = try #require(navigator.actions.first?.bundle)
///     #expect(try bundle.get(Checkout.orderID) == 1_042)
/// }
///
/// @MainActor @Test func aFailedNavigationIsShownToTheUser() {
///     let navigator = RecordingNavigator<OrdersNavigation>(failure: .unavailable(reason: "host closed"))
///     let model = OrdersViewModel(navigator: navigator)
///     model.showHelp()
///     #expect(model.errorMessage != nil)
/// }
/// ```
@MainActor
public final class RecordingNavigator<Action: NavigationAction>: Navigator {
    /// Every action ``navigate(_:)`` was called with, in call order, including those it threw for.
    public private(set) var actions: [Action] = []

    /// The error ``navigate(_:)`` throws (after recording the action), or `nil` to succeed.
    public var failure: NavigationError?

    /// Creates a navigator with no recorded actions.
    ///
    /// - Parameter failure: The error every navigation throws, or `nil` (the default) to succeed.
    public init(failure: NavigationError? = nil) {
        self.failure = failure
    }

    /// Records `action`, then throws ``failure`` if one is set.
    ///
    /// - Parameter action: The action to record.
    /// - Throws: ``failure``, when it is set.
    public func navigate(_ action: Action) throws(NavigationError) {
        actions.append(action)
        if let failure { throw failure }
    }

    /// Forgets the recorded actions (``failure`` stays as it is).
    public func removeAllActions() {
        actions.removeAll()
    }
}
