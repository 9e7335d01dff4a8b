import MainlineViewModels

extension NavigationStack {
    /// A navigator that pushes and pops on this stack: the `Navigator` of a `NavigatingViewModel` whose actions push
    /// screens (see ``CoordinatorNavigator``).
    ///
    /// Must be called on the main actor.
    ///
    /// ```swift
    /// let navigator = stack.navigator(for: OrdersNavigation.self) { action in
    ///     switch action {
    ///     case .details(let bundle): .push(OrderScreen(model: try OrderViewModel(bundle: bundle)))
    ///     case .close: .pop
    ///     }
    /// }
    /// let model = OrdersViewModel(navigator: navigator)
    /// ```
    ///
    /// - Parameters:
    ///   - action: The view model's action type.
    ///   - coordinator: The parent of the child coordinators it starts, if any.
    ///   - map: What to do for each action; `nil` for an action it does not map. A spec that presents or dismisses
    ///     throws `NavigationError.failed`: a stack has no modal slot.
    /// - Returns: The navigator; it holds this stack weakly.
    public func navigator<Action: NavigationAction>(
        for action: Action.Type = Action.self,
        coordinator: AnyCoordinator? = nil,
        map: @escaping CoordinatorNavigator<Action>.Mapping
    ) -> CoordinatorNavigator<Action> {
        CoordinatorNavigator(stack: self, coordinator: coordinator, map: map)
    }
}
