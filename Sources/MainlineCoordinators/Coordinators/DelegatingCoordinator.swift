/// A coordinator with no screen of its own that hands off to one child at a time: an app's root deciding between a
/// login flow and the main flow.
///
/// Must be used on the main actor.
///
/// It holds its current child strongly (the child has screens; the delegating coordinator has none, so nothing else
/// would keep it). Handing off to a new child cancels the previous one if it is still running.
@MainActor
open class DelegatingCoordinator<Output>: Coordinator<Output> {
    /// The child in charge now.
    public private(set) var child: AnyCoordinator?

    /// Hands off to `child`, shown with `presentation`.
    ///
    /// - Parameters:
    ///   - child: The new child.
    ///   - presentation: Where it shows its screens.
    public func handOff<ChildOutput>(to child: Coordinator<ChildOutput>, presentation: Presentation) {
        let previous = self.child
        self.child = child
        previous?.cancel()
        startChild(child, presentation: presentation)
    }
}
