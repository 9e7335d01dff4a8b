import Foundation
import MainlineLoop

/// The coordinator types routes can build, by explicitly stated identifier — never derived from type names.
///
/// Must be used on the main actor.
///
/// ```swift
/// let registry = RouteRegistry()
/// registry.register(OrdersCoordinator.self, as: "orders")
/// registry.register(OrderCoordinator.self, as: "order")
/// try registry.perform(route, from: shop, stack: stack, modal: modal)
/// ```
///
/// Performing is **all or nothing**: every coordinator of the path is built first, and the chain is started — in
/// order, each the child of the one before — only if all were built. Otherwise a ``RouteError`` is thrown and
/// nothing was started.
@MainActor
public final class RouteRegistry {
    private var builders: [String: @MainActor (RouteData) throws -> any RoutableCoordinator] = [:]

    /// Creates an empty registry.
    public init() {}

    /// Registers `type` under `id`, replacing an earlier registration of the same identifier.
    ///
    /// - Parameters:
    ///   - type: A coordinator type that can be built from route data.
    ///   - id: The identifier routes use for it.
    public func register<C: RoutableCoordinator>(_ type: C.Type, as id: String) {
        builders[id] = { data in try C(routeData: data) }
    }

    /// The registered identifiers.
    public var identifiers: Set<String> { Set(builders.keys) }

    /// Builds every coordinator of `route`, then starts them in order.
    ///
    /// - Parameters:
    ///   - route: The route.
    ///   - root: The parent of the first coordinator (`nil` to start the chain as a root).
    ///   - stack: Where items with `"present": "push"` push their screens.
    ///   - modal: Where items with `"present": "present"` present theirs.
    /// - Returns: The coordinators started, outermost first.
    /// - Throws: ``RouteError/idNotRegistered(_:)`` or ``RouteError/invalidInputData(id:reason:)``; nothing was
    ///   started then.
    @discardableResult
    public func perform(
        _ route: Route,
        from root: AnyCoordinator?,
        stack: NavigationStack,
        modal: ModalSlot
    ) throws(RouteError) -> [any RoutableCoordinator] {
        var built: [any RoutableCoordinator] = []
        // Coordinators built before a failure were never started: they leave without reporting a cancellation.
        func discardBuilt() {
            for coordinator in built { (coordinator as? any _DiscardableCoordinator)?.discardSilently() }
        }
        for item in route.items {
            guard let build = builders[item.id] else {
                discardBuilt()
                throw .idNotRegistered(item.id)
            }
            do {
                built.append(try build(item.data))
            } catch {
                discardBuilt()
                throw .invalidInputData(id: item.id, reason: "\(error)")
            }
        }
        var parent = root
        for (coordinator, item) in zip(built, route.items) {
            let presentation: Presentation =
                switch item.present {
                case .push: .push(stack)
                case .present: .present(modal, style: item.style ?? .sheet)
                }
            coordinator.start(asChildOf: parent, presentation: presentation)
            parent = coordinator
        }
        return built
    }

    /// Decodes `json` on the calling thread, then performs the route on `loop`, and returns once it was performed.
    /// Callable from any thread or task: routes may arrive from a socket or another process.
    ///
    /// - Parameters:
    ///   - json: The route's JSON form.
    ///   - loop: The loop the registry and containers live on.
    ///   - perform: Performs the decoded route on the loop (usually a call to ``perform(_:from:stack:modal:)``).
    /// - Throws: Any ``RouteError``: from decoding, or from `perform`; or
    ///   ``RouteError/invalidNotificationPath(reason:)`` when the loop has stopped.
    public nonisolated static func receive(
        json: Data,
        on loop: any Loop,
        perform: @escaping @MainActor @Sendable (Route) throws(RouteError) -> Void
    ) async throws(RouteError) {
        let route = try Route(json: json)
        let outcome: Result<Void, RouteError> = await withCheckedContinuation { continuation in
            let accepted = loop.post {
                do throws(RouteError) {
                    try perform(route)
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            if !accepted {
                continuation.resume(returning: .failure(.invalidNotificationPath(reason: "the loop has stopped")))
            }
        }
        try outcome.get()
    }
}
