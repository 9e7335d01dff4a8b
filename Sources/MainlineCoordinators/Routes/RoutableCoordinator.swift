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
}

/// A coordinator a failed route can finish without running its handlers: what ``RouteRegistry`` does with the
/// coordinators it built before the failure. Must be used on the main actor.
///
/// Internal, so that discarding is no requirement of the public ``RoutableCoordinator``: every ``Coordinator``
/// conforms; a conformer of `RoutableCoordinator` that is no `Coordinator` has no handlers to skip, and is just let go.
@MainActor
protocol _DiscardableCoordinator: AnyObject {
    /// Finishes the coordinator, which was built and never started, without running a handler.
    func discardSilently()
}

extension Coordinator: _DiscardableCoordinator {}
