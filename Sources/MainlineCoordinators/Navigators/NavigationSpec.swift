/// What a ``CoordinatorNavigator`` does for one navigation action: push or present a screen or a child
/// coordinator, perform a route, pop, or dismiss the modal — upstream Kaluga's `NavigationSpec`, which its navigators' mappers return
/// for each action.
///
/// Must be used on the main actor.
///
/// ```swift
/// let navigator = flow.navigator(for: OrdersNavigation.self, coordinator: orders) { action in
///     switch action {
///     case .details(let bundle): .push(OrderCoordinator(bundle: bundle))   // a child coordinator, pushed
///     case .filter: .present(Screen("filter"), style: .sheet)              // a screen, presented modally
///     case .close: .pop
///     }
/// }
/// ```
///
/// A spec is made when the navigator maps an action and performed at once; it is not kept. A coordinator given to
/// ``push(_:)-(Coordinator<Output>)`` or ``present(_:style:)-(Coordinator<Output>,_)`` is started only when the
/// spec is performed, as a child of the navigator's coordinator.
@MainActor
public struct NavigationSpec {
    enum Kind {
        case push(Screen)
        case present(Screen, PresentationStyle)
        // Starts a child coordinator with the presentation the navigator builds, as the child of its parent.
        case child(modalStyle: PresentationStyle?, start: (Presentation, AnyCoordinator?) -> Void)
        case route(Route, RouteRegistry)
        case pop
        case popTo(Screen)
        case popToRoot
        case dismissModal
    }

    let kind: Kind

    /// Pushes `screen` onto the navigator's stack.
    ///
    /// - Parameter screen: The next screen; its view model reads the action's bundle.
    /// - Returns: The spec.
    public static func push(_ screen: Screen) -> NavigationSpec {
        NavigationSpec(kind: .push(screen))
    }

    /// Presents `screen` in the navigator's modal slot, dismissing a modal already shown.
    ///
    /// - Parameters:
    ///   - screen: The next screen.
    ///   - style: How to present it.
    /// - Returns: The spec.
    public static func present(_ screen: Screen, style: PresentationStyle = .sheet) -> NavigationSpec {
        NavigationSpec(kind: .present(screen, style))
    }

    /// Starts `child` as a child of the navigator's coordinator, pushing its screens onto the navigator's stack.
    ///
    /// - Parameter child: A coordinator not started yet; it lives as long as its screens.
    /// - Returns: The spec.
    public static func push<Output>(_ child: Coordinator<Output>) -> NavigationSpec {
        NavigationSpec(
            kind: .child(modalStyle: nil) { presentation, parent in
                child.start(asChildOf: parent, presentation: presentation)
            }
        )
    }

    /// Starts `child` as a child of the navigator's coordinator, presenting its screens in the navigator's modal slot.
    ///
    /// - Parameters:
    ///   - child: A coordinator not started yet; it lives as long as its screens.
    ///   - style: How to present its screens.
    /// - Returns: The spec.
    public static func present<Output>(
        _ child: Coordinator<Output>,
        style: PresentationStyle = .sheet
    ) -> NavigationSpec {
        NavigationSpec(
            kind: .child(modalStyle: style) { presentation, parent in
                child.start(asChildOf: parent, presentation: presentation)
            }
        )
    }

    /// Performs `route` from the navigator's coordinator: builds every coordinator of its path with `registry`, then
    /// starts them in order on the navigator's stack and modal slot (``RouteRegistry/perform(_:from:stack:modal:)``),
    /// as a deep link would.
    ///
    /// All or nothing, as a route always is: when `registry` cannot build the route, the navigator throws
    /// `NavigationError.failed` with the ``RouteError`` and nothing was started.
    ///
    /// - Parameters:
    ///   - route: The route, for example decoded from the action's bundle or built in the mapper.
    ///   - registry: The coordinator types the route may build.
    /// - Returns: The spec; the navigator needs both a stack and a modal slot to perform it.
    public static func route(_ route: Route, in registry: RouteRegistry) -> NavigationSpec {
        NavigationSpec(kind: .route(route, registry))
    }

    /// Removes the top screen of the navigator's stack (``NavigationStack/pop()``).
    public static var pop: NavigationSpec { NavigationSpec(kind: .pop) }

    /// Removes every screen above `screen` on the navigator's stack (``NavigationStack/pop(to:)``).
    ///
    /// - Parameter screen: A screen on the stack, which stays on top.
    /// - Returns: The spec. A screen not on the stack fails the navigation (and the stack reports
    ///   `popToMissingScreen`, its own misuse rule).
    public static func pop(to screen: Screen) -> NavigationSpec {
        NavigationSpec(kind: .popTo(screen))
    }

    /// Removes every screen above the root of the navigator's stack (``NavigationStack/popToRoot()``).
    public static var popToRoot: NavigationSpec { NavigationSpec(kind: .popToRoot) }

    /// Dismisses the modal of the navigator's modal slot (``ModalSlot/dismissModal()``).
    public static var dismissModal: NavigationSpec { NavigationSpec(kind: .dismissModal) }
}
