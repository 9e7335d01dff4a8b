/// What every coordinator is, whatever its output: something that finishes once, and can be cancelled.
///
/// Must be used on the main actor. ``Coordinator`` is the base class to subclass; this protocol lets screens,
/// containers and routes hold coordinators of any output type.
@MainActor
public protocol AnyCoordinator: AnyObject {
    /// Whether the coordinator has completed or been cancelled.
    var isFinished: Bool { get }

    /// The coordinator that started this one, if any.
    var parent: AnyCoordinator? { get }

    /// Cancels the coordinator if it has not finished. Idempotent.
    func cancel()

    /// Starts the coordinator: it presents its first screen (or hands off to a child).
    func start()
}
