import MainlineLoop
import MainlineObservables

/// A headless navigation stack: a root screen and the screens pushed above it, observable on the loop so that a
/// host can render whatever is on top.
///
/// Must be used on the main actor.
///
/// ```swift
/// let stack = NavigationStack(root: Screen("home"))
/// let rendering = stack.top.observe { screen in terminal.render(screen) }
/// stack.navigate(to: Screen("settings"))
/// stack.pop()
/// ```
///
/// Removing a screen releases it; a coordinator whose last screen leaves is released too, and cancelled if it had
/// not finished (see ``Coordinator``). **Mainline**: ``pop()`` with nothing above the root and ``pop(to:)`` of a
/// screen not on the stack return `false` and report to `Diagnostics` (`popEmptyStack`, `popToMissingScreen`);
/// they never trap.
@MainActor
public final class NavigationStack {
    private let root: InitializedSubject<Screen?>
    private let pathSubject: InitializedSubject<[Screen]>
    private let topSubject: InitializedSubject<Screen?>
    /// What an inspector (`LoopInspector`) reads of the stack on its own thread; `nil` unless one had been started.
    let inspection = _ScreensMirror.make(for: NavigationStack.self)

    /// Creates a stack.
    ///
    /// - Parameters:
    ///   - root: The bottom screen, if any.
    ///   - loop: The loop observers are called on.
    public init(root: Screen? = nil, loop: any Loop = MainLoop.main) {
        self.root = subjectOf(root, loop: loop)
        self.pathSubject = subjectOf([], loop: loop)
        self.topSubject = subjectOf(root, loop: loop)
        inspection?.update(screens)
    }

    /// The screens above the root, bottom first.
    public var path: InitializedObservable<[Screen]> { pathSubject }

    /// The screen on top (the root when nothing was pushed), for hosts to render.
    public var top: InitializedObservable<Screen?> { topSubject }

    /// The root screen.
    public var rootScreen: Screen? { root.value }

    /// Every screen, root first.
    public var screens: [Screen] { (root.value.map { [$0] } ?? []) + pathSubject.value }

    /// Pushes `screen` on top.
    ///
    /// - Parameter screen: The screen.
    public func navigate(to screen: Screen) {
        pathSubject.value.append(screen)
        updateTop()
    }

    /// Removes the top screen (never the root).
    ///
    /// - Returns: `false`, reported as `popEmptyStack`, when nothing is above the root.
    @discardableResult
    public func pop() -> Bool {
        guard !pathSubject.value.isEmpty else {
            Diagnostics.report(
                .popEmptyStack,
                "NavigationStack.pop() was called with nothing above the root. Check `path` first, or use popToRoot(). Nothing was popped."
            )
            return false
        }
        pathSubject.value.removeLast()
        updateTop()
        return true
    }

    /// Removes every screen above `screen`, which stays on top.
    ///
    /// - Parameter screen: A screen on the stack (the root, or one in ``path``).
    /// - Returns: `false`, reported as `popToMissingScreen`, when `screen` is not on the stack.
    @discardableResult
    public func pop(to screen: Screen) -> Bool {
        if screen === root.value {
            popToRoot()
            return true
        }
        guard let index = pathSubject.value.firstIndex(where: { $0 === screen }) else {
            Diagnostics.report(
                .popToMissingScreen,
                "NavigationStack.pop(to: \(screen.name)) was given a screen that is not on the stack. Nothing was popped."
            )
            return false
        }
        pathSubject.value.removeSubrange((index + 1)...)
        updateTop()
        return true
    }

    /// Removes every screen above the root.
    public func popToRoot() {
        guard !pathSubject.value.isEmpty else { return }
        pathSubject.value = []
        updateTop()
    }

    /// Replaces everything: a new root (or none) and nothing above it.
    ///
    /// - Parameter newRoot: The new root.
    public func reset(root newRoot: Screen? = nil) {
        pathSubject.value = []
        root.value = newRoot
        updateTop()
    }

    private func updateTop() {
        let top = pathSubject.value.last ?? root.value
        if topSubject.value !== top { topSubject.value = top }
        inspection?.update(screens)
    }
}
