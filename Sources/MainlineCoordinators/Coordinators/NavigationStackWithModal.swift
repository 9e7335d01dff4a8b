import MainlineLoop

/// A navigation stack with its modal slot: the container a host renders for a flow that pushes screens and also
/// presents one modally over them — FuturedKit's `NavigationStackCoordinator`, which owns its `path` and its
/// `modalCover` together.
///
/// Must be used on the main actor.
///
/// ```swift
/// let flow = NavigationStackWithModal(root: Screen("home"))
/// let rendering = flow.stack.top.observe { terminal.render($0) }
/// let modalRendering = flow.modal.modal.observe { terminal.renderOver($0) }
/// flow.navigate(to: Screen("orders"))
/// flow.present(modal: Screen("filter"), style: .sheet)
/// flow.reset(root: Screen("home"))  // the path and the modal go together: "home" alone is shown
/// ```
///
/// The two parts stay what they are: ``stack`` is a ``NavigationStack`` and ``modal`` a ``ModalSlot``, so a
/// coordinator shows its screens with `.push(flow.stack)` or `.present(flow.modal, style:)`, and a route is performed
/// with `registry.perform(route, from: root, stack: flow.stack, modal: flow.modal)`. What this type adds is the
/// operations that span both, as upstream's:
/// - ``reset(root:)`` clears the path **and** dismisses the modal (upstream `reset()`: `path = []`,
///   `modalCover = nil`); the modal's `onModalDismiss` runs, as SwiftUI runs a sheet's `onDismiss`.
/// - ``pop()``, ``pop(to:)`` and ``popToRoot()`` change the path only, as upstream's do: a presented modal **stays**
///   presented over the stack, which changes underneath it. ``dismissModal()`` closes the modal.
///
/// **Mainline**: as on ``NavigationStack``, ``pop()`` with nothing above the root returns `false` and reports
/// `popEmptyStack` (upstream's `path.removeLast()` traps), whether or not a modal is shown.
@MainActor
public final class NavigationStackWithModal {
    /// The stack: the root screen and the screens pushed above it.
    public let stack: NavigationStack
    /// The modal slot, presented over the stack.
    public let modal: ModalSlot

    /// Creates a stack with an empty modal slot.
    ///
    /// - Parameters:
    ///   - root: The bottom screen of the stack, if any.
    ///   - loop: The loop observers of both parts are called on.
    public init(root: Screen? = nil, loop: any Loop = MainLoop.main) {
        stack = NavigationStack(root: root, loop: loop)
        modal = ModalSlot(loop: loop)
    }

    /// Pushes `screen` on top of the stack, under the modal if one is shown (upstream `navigate(to:)`).
    ///
    /// - Parameter screen: The screen.
    public func navigate(to screen: Screen) {
        stack.navigate(to: screen)
    }

    /// Removes the top screen of the stack; a presented modal stays (upstream `pop()`).
    ///
    /// - Returns: `false`, reported as `popEmptyStack`, when nothing is above the root.
    @discardableResult
    public func pop() -> Bool {
        stack.pop()
    }

    /// Removes every screen of the stack above `screen`; a presented modal stays (upstream `pop(to:)`).
    ///
    /// - Parameter screen: A screen on the stack.
    /// - Returns: `false`, reported as `popToMissingScreen`, when `screen` is not on the stack.
    @discardableResult
    public func pop(to screen: Screen) -> Bool {
        stack.pop(to: screen)
    }

    /// Removes every screen above the root; a presented modal stays (upstream `popToRoot()`).
    public func popToRoot() {
        stack.popToRoot()
    }

    /// Shows `screen` modally over the stack, dismissing a modal already shown (upstream `present(modal:type:)`).
    ///
    /// - Parameters:
    ///   - screen: The screen.
    ///   - style: How to present it.
    public func present(modal screen: Screen, style: PresentationStyle = .sheet) {
        modal.present(modal: screen, style: style)
    }

    /// Dismisses the modal, if any, and calls the slot's `onModalDismiss` with it (upstream `dismissModal()`).
    ///
    /// - Returns: `false` when no modal was shown.
    @discardableResult
    public func dismissModal() -> Bool {
        modal.dismissModal()
    }

    /// Replaces everything: the stack gets a new root (or none) and nothing above it, and the modal is dismissed
    /// (upstream `reset()`).
    ///
    /// The stack changes first, then the modal is dismissed and its `onModalDismiss` runs, in upstream's order.
    /// Screens that leave are released, and so are coordinators whose last screen they were (see ``Coordinator``).
    ///
    /// - Parameter newRoot: The new root of the stack; `nil` for none, as ``NavigationStack/reset(root:)``.
    public func reset(root newRoot: Screen? = nil) {
        stack.reset(root: newRoot)
        modal.dismissModal()
    }
}
