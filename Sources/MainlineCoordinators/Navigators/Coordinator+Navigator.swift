import MainlineViewModels

extension Coordinator {
    /// A navigator for the view models of this coordinator's screens: it shows the next screens where this
    /// coordinator presents, and starts child coordinators as its children (see ``CoordinatorNavigator``).
    ///
    /// Must be called on the main actor, after ``start(presentation:)`` (usually in ``start()``): by default it uses
    /// the stack this coordinator pushes onto, or the modal slot it presents in.
    ///
    /// ```swift
    /// override func start() {
    ///     let navigator = navigator(for: EmailNavigation.self, modal: modal) { action in
    ///         switch action {
    ///         case .password(let bundle): .push(PasswordCoordinator(bundle: bundle))
    ///         case .help: .present(Screen("help"), style: .sheet)
    ///         }
    ///     }
    ///     show(EmailScreen(model: EmailViewModel(navigator: navigator), owner: self))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - action: The view model's action type.
    ///   - stack: Where pushes and pops go; by default the stack of ``presentation`` when it is `.push`.
    ///   - modal: Where presentations and dismissals go; by default the slot of ``presentation`` when it is
    ///     `.present`.
    ///   - map: What to do for each action; `nil` for an action it does not map.
    /// - Returns: The navigator; it holds this coordinator and the containers weakly, and throws
    ///   `NavigationError.unavailable` once this coordinator was released.
    public func navigator<Action: NavigationAction>(
        for action: Action.Type = Action.self,
        stack: NavigationStack? = nil,
        modal: ModalSlot? = nil,
        map: @escaping CoordinatorNavigator<Action>.Mapping
    ) -> CoordinatorNavigator<Action> {
        var presentedStack: NavigationStack?
        var presentedModal: ModalSlot?
        switch presentation {
        case .push(let stack): presentedStack = stack
        case .present(let slot, _): presentedModal = slot
        case .tab, nil: break
        }
        return CoordinatorNavigator(
            stack: stack ?? presentedStack,
            modal: modal ?? presentedModal,
            coordinator: self,
            map: map
        )
    }
}
