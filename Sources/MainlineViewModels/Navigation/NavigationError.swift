/// Why a ``Navigator`` did not perform an action.
///
/// `NavigationError` is a value type; all operations on it are thread-safe.
public enum NavigationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The navigator has no destination for this action.
    ///
    /// - Parameter action: The action, described (`String(describing:)`).
    case unsupportedAction(String)

    /// The navigator cannot navigate now: its host is gone, detached or shutting down.
    ///
    /// - Parameter reason: Why.
    case unavailable(reason: String)

    /// The destination could not be built or shown, for example because its bundle did not hold what it needs.
    ///
    /// - Parameters:
    ///   - action: The action, described (`String(describing:)`).
    ///   - reason: Why.
    case failed(action: String, reason: String)

    /// What went wrong, naming the action where there is one.
    public var description: String {
        switch self {
        case .unsupportedAction(let action): "The navigator has no destination for \(action)."
        case .unavailable(let reason): "The navigator cannot navigate now: \(reason)."
        case .failed(let action, let reason): "Navigating to \(action) failed: \(reason)."
        }
    }
}
