import MainlineViewModels

/// A `Navigator` backed by coordinator containers: it maps each action of a view model to a ``NavigationSpec`` —
/// push or present a screen or a child coordinator, perform a route, pop, dismiss — and performs it on its ``NavigationStack`` and
/// ``ModalSlot``. Upstream Kaluga's platform navigators (`ViewControllerNavigator`, `ActivityNavigator`) take the
/// same mapper from action to spec; this one shows screens in headless containers.
///
/// Must be used on the main actor.
///
/// Make one from the container or the coordinator that shows the screens —
/// ``NavigationStack/navigator(for:coordinator:map:)``,
/// ``NavigationStackWithModal/navigator(for:coordinator:map:)`` or
/// ``Coordinator/navigator(for:stack:modal:map:)`` — and give it to a `NavigatingViewModel`:
///
/// ```swift
/// enum EmailNavigation: NavigationAction {
///     case password(NavigationBundle)   // SignUpBundle.spec: the email
///     case back
///     var bundle: NavigationBundle? { if case .password(let bundle) = self { bundle } else { nil } }
/// }
///
/// final class EmailCoordinator: Coordinator<Void> {
///     override func start() {
///         let navigator = navigator(for: EmailNavigation.self) { action in
///             switch action {
///             case .password(let bundle): .push(PasswordCoordinator(bundle: bundle))
///             case .back: .pop
///             }
///         }
///         show(EmailScreen(model: EmailViewModel(navigator: navigator), owner: self))
///     }
/// }
///
/// // In the view model: the action carries the typed value to the next screen.
/// navigate(.password(SignUpBundle.spec.toBundle { _ in SignUpBundle.email.value(email) }))
/// // In the next screen's view model:
/// let email = try bundle.get(SignUpBundle.email)   // throws NavigationBundleGetError if missing or mistyped
/// ```
///
/// What ``navigate(_:)`` does, and how it fails (it throws a `NavigationError`; nothing was shown then):
/// - The mapper returns `nil` for an action it does not map: `NavigationError.unsupportedAction`. A typed
///   error, not a `Diagnostics` report: the `Navigator` contract already gives the view model a failure channel
///   (`navigate` returns `false`, `navigateOrElse` gets the error), a host may map only some actions on purpose (as
///   a Kaluga mapper throws for one it cannot show), and an action can be built from outside input.
/// - The mapper throws — typically the next screen's view model could not read the bundle
///   (`NavigationBundleGetError`): `NavigationError.failed` with the error's description.
/// - The coordinator or the container a spec needs was released: `NavigationError.unavailable`. It was made
///   without that container (a modal slot to present in): `NavigationError.failed`, naming the container.
/// - A ``NavigationSpec/route(_:in:)`` the registry rejects: `NavigationError.failed` with the ``RouteError``;
///   nothing was started.
/// - The container did nothing — ``NavigationSpec/pop`` with nothing above the root or
///   ``NavigationSpec/pop(to:)`` of a screen not on the stack (which the stack also reports, as `popEmptyStack` or
///   `popToMissingScreen`: its own misuse rules), ``NavigationSpec/dismissModal`` with no modal shown:
///   `NavigationError.failed`.
///
/// A navigating view model that was cleared does not reach the navigator: `NavigatingViewModel.navigate(_:)`
/// reports `transitionAfterClear` and returns `false`.
///
/// The navigator holds its containers and coordinator **weakly**: containers hold screens, screens hold view models,
/// and view models hold their navigator, so a strong reference would keep every screen alive forever, and a
/// coordinator would outlive its screens (see ``Coordinator``).
@MainActor
public final class CoordinatorNavigator<Action: NavigationAction>: Navigator {
    /// Maps an action to what to do, or `nil` for an action this navigator does not map. It may throw, for
    /// example when the next screen's view model cannot read the action's bundle.
    public typealias Mapping = @MainActor (Action) throws -> NavigationSpec?

    // All protected by the main actor.
    private weak var stack: NavigationStack?
    private weak var modal: ModalSlot?
    private weak var coordinator: AnyCoordinator?
    // Whether each was given, to tell "released" from "never given" in errors.
    private let hasStack: Bool
    private let hasModal: Bool
    private let hasCoordinator: Bool
    private let map: Mapping

    /// Creates a navigator that performs on `stack` and `modal`, starting child coordinators as children of
    /// `coordinator`.
    ///
    /// - Parameters:
    ///   - stack: Where pushes and pops go; `nil` when this navigator never pushes.
    ///   - modal: Where presentations and dismissals go; `nil` when this navigator never presents.
    ///   - coordinator: The coordinator whose screen's view model navigates: the parent of the child coordinators
    ///     it starts. When given, navigating after it was released throws `NavigationError.unavailable`.
    ///   - map: What to do for each action.
    public init(
        stack: NavigationStack?,
        modal: ModalSlot? = nil,
        coordinator: AnyCoordinator? = nil,
        map: @escaping Mapping
    ) {
        self.stack = stack
        self.modal = modal
        self.coordinator = coordinator
        self.hasStack = stack != nil
        self.hasModal = modal != nil
        self.hasCoordinator = coordinator != nil
        self.map = map
    }

    /// Maps `action` to a ``NavigationSpec`` and performs it: pushes or presents the next screen (which reads the
    /// action's bundle), starts a child coordinator, pops or dismisses.
    ///
    /// - Parameter action: Where to go, with its data.
    /// - Throws: `NavigationError` when nothing was shown: see ``CoordinatorNavigator`` for each case.
    public func navigate(_ action: Action) throws(NavigationError) {
        let described = String(describing: action)
        if hasCoordinator && coordinator == nil {
            throw .unavailable(reason: "the coordinator of \(Action.self)'s navigator was released with its screens")
        }
        let spec: NavigationSpec?
        do {
            spec = try map(action)
        } catch {
            throw .failed(action: described, reason: "the next screen could not be built: \(error)")
        }
        guard let spec else { throw .unsupportedAction(described) }
        try perform(spec, described: described)
    }

    private func perform(_ spec: NavigationSpec, described: String) throws(NavigationError) {
        switch spec.kind {
        case .push(let screen):
            try requireStack(described).navigate(to: screen)
        case .present(let screen, let style):
            try requireModal(described).present(modal: screen, style: style)
        case .child(let modalStyle, let start):
            let presentation: Presentation =
                if let modalStyle {
                    .present(try requireModal(described), style: modalStyle)
                } else {
                    .push(try requireStack(described))
                }
            start(presentation, coordinator)
        case .route(let route, let registry):
            let stack = try requireStack(described)
            let modal = try requireModal(described)
            do {
                try registry.perform(route, from: coordinator, stack: stack, modal: modal)
            } catch {
                throw .failed(action: described, reason: "its route was rejected: \(error)")
            }
        case .pop:
            guard try requireStack(described).pop() else {
                throw .failed(action: described, reason: "nothing is above the root of the stack to pop")
            }
        case .popTo(let screen):
            guard try requireStack(described).pop(to: screen) else {
                throw .failed(action: described, reason: "\(screen.name) is not on the stack to pop to")
            }
        case .popToRoot:
            try requireStack(described).popToRoot()
        case .dismissModal:
            guard try requireModal(described).dismissModal() else {
                throw .failed(action: described, reason: "no modal is presented to dismiss")
            }
        }
    }

    // Released: the host is gone (`unavailable`). Never given: this navigator cannot show the spec (`failed`).
    private func requireStack(_ described: String) throws(NavigationError) -> NavigationStack {
        if let stack { return stack }
        guard hasStack else {
            throw .failed(
                action: described,
                reason: "the navigator was made without a navigation stack to push or pop"
            )
        }
        throw .unavailable(reason: "its navigation stack was released")
    }

    private func requireModal(_ described: String) throws(NavigationError) -> ModalSlot {
        if let modal { return modal }
        guard hasModal else {
            throw .failed(
                action: described,
                reason: "the navigator was made without a modal slot to present or dismiss"
            )
        }
        throw .unavailable(reason: "its modal slot was released")
    }
}
