/// How a ``Coordinator`` finished.
///
/// `CoordinatorResult` is a value type; it is thread-safe when `Output` is `Sendable`.
public enum CoordinatorResult<Output> {
    /// The flow produced its output.
    case completed(Output)
    /// The flow was cancelled: explicitly, or because it was released before it finished.
    case cancelled
}

extension CoordinatorResult: Equatable where Output: Equatable {}
extension CoordinatorResult: Sendable where Output: Sendable {}
