import MainlineLoop

/// A reusable sub-flow embedded in a coordinator's navigation stack: it pushes its own screens, and hands control
/// back with an end destination (FuturedKit's flow providers).
///
/// Must be used on the main actor.
///
/// ```swift
/// enum AddressEnd { case confirmed(Address), cancelled }
///
/// let address = FlowProvider<AddressEnd>(stack: stack) { end in
///     switch end {
///     case .confirmed(let address): checkout.use(address)
///     case .cancelled: break
///     }
/// }
/// address.navigate(to: Screen("street", owner: checkout))
/// address.navigate(to: Screen("city", owner: checkout))
/// // … later:
/// address.end(with: .confirmed(entered))   // its screens leave the stack; the coordinator's stay
/// ```
///
/// Ending removes the screens the flow pushed (and any pushed above them), then calls `onEnd` once. Later calls to
/// ``navigate(to:)``, ``pop()`` and ``end(with:)`` do nothing.
@MainActor
public final class FlowProvider<EndDestination> {
    /// The stack the flow pushes onto.
    public let stack: NavigationStack
    private var onEnd: (@MainActor (EndDestination) -> Void)?
    private var screens: [Screen] = []

    /// Creates a flow on `stack`.
    ///
    /// - Parameters:
    ///   - stack: The host coordinator's stack.
    ///   - onEnd: Runs once, with the destination the flow ended with.
    public init(stack: NavigationStack, onEnd: @escaping @MainActor (EndDestination) -> Void) {
        self.stack = stack
        self.onEnd = onEnd
    }

    /// Whether ``end(with:)`` was called.
    public var isEnded: Bool { onEnd == nil }

    /// The flow's screens still on the stack, bottom first.
    public var pushedScreens: [Screen] {
        screens.filter { screen in stack.path.current.contains { $0 === screen } }
    }

    /// Pushes one of the flow's screens.
    ///
    /// - Parameter screen: The screen.
    public func navigate(to screen: Screen) {
        guard !isEnded else { return }
        screens.append(screen)
        stack.navigate(to: screen)
    }

    /// Pops the flow's top screen, if it is on top of the stack.
    ///
    /// - Returns: `false` when the flow has no screen on top (nothing is popped: the flow never pops its host's).
    @discardableResult
    public func pop() -> Bool {
        guard !isEnded, let top = stack.top.current, screens.contains(where: { $0 === top }) else { return false }
        return stack.pop()
    }

    /// Ends the flow: removes its screens from the stack and calls `onEnd` with `destination`. Once only.
    ///
    /// - Parameter destination: Where control goes back to the host.
    public func end(with destination: EndDestination) {
        guard let onEnd else { return }
        self.onEnd = nil
        if let first = pushedScreens.first {
            let below = stack.path.current.firstIndex { $0 === first }.flatMap { index in
                index > 0 ? stack.path.current[index - 1] : nil
            }
            if let below { stack.pop(to: below) } else { stack.popToRoot() }
        }
        screens = []
        onEnd(destination)
    }
}
