/// A coordinator a route can build: from the `data` of its route item.
///
/// Must be used on the main actor.
@MainActor
public protocol RoutableCoordinator: AnyCoordinator {
    /// Builds the coordinator from its route item's data.
    ///
    /// - Parameter routeData: The item's `data` object.
    /// - Throws: Any error when the data does not fit; the route then throws
    ///   ``RouteError/invalidInputData(id:reason:)`` and starts nothing.
    init(routeData: RouteData) throws

    /// Starts the coordinator as the child of `parent`, presenting with `presentation`.
    ///
    /// ``Coordinator`` subclasses get this for free.
    func start(asChildOf parent: AnyCoordinator?, presentation: Presentation)

    /// Marks a coordinator that a failed route built but never started as finished, without running its handlers.
    /// For the package's own use; ``Coordinator`` subclasses get it for free.
    func _discardUnstarted()
}

extension Coordinator {
    /// Starts this coordinator as the child of `parent` (or as a root), presenting with `presentation`.
    ///
    /// - Parameters:
    ///   - parent: The parent; `nil` for a root.
    ///   - presentation: Where it shows its screens.
    public func start(asChildOf parent: AnyCoordinator?, presentation: Presentation) {
        adopt(parent: parent)
        start(presentation: presentation)
    }

    /// Finishes a coordinator that was built but never started, silently (see `RoutableCoordinator`).
    public func _discardUnstarted() {
        discardSilently()
    }
}
