import MainlineViewModels

extension NavigationStackWithModal {
    /// A navigator that pushes and pops on ``stack`` and presents and dismisses in ``modal``: the `Navigator` of a
    /// `NavigatingViewModel` (see ``CoordinatorNavigator``).
    ///
    /// Must be called on the main actor.
    ///
    /// ```swift
    /// let navigator = flow.navigator(for: PasswordNavigation.self, coordinator: self) { action in
    ///     switch action {
    ///     case .confirm(let bundle): .present(ConfirmCoordinator(bundle: bundle), style: .sheet)
    ///     case .back: .pop
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - action: The view model's action type.
    ///   - coordinator: The parent of the child coordinators it starts, if any.
    ///   - map: What to do for each action; `nil` for an action it does not map.
    /// - Returns: The navigator; it holds the stack and the slot weakly.
    public func navigator<Action: NavigationAction>(
        for action: Action.Type = Action.self,
        coordinator: AnyCoordinator? = nil,
        map: @escaping CoordinatorNavigator<Action>.Mapping
    ) -> CoordinatorNavigator<Action> {
        CoordinatorNavigator(stack: stack, modal: modal, coordinator: coordinator, map: map)
    }
}
