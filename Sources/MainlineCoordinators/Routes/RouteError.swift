/// Why a route could not be performed. Nothing was started when one of these is thrown.
///
/// `RouteError` is a value type; all operations on it are thread-safe.
public enum RouteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An item names a coordinator identifier that is not registered.
    case idNotRegistered(String)
    /// A coordinator could not be built from its item's `data` (its initializer threw or returned `nil`).
    case invalidInputData(id: String, reason: String)
    /// The route has no `coordinatorPath`, or the path has no items, or is not JSON at all.
    case invalidNotificationPath(reason: String)
    /// An item of the path is malformed (no `id`, no `present` or an unknown one, an unknown style, …).
    case itemJSONInvalid(index: Int, reason: String)

    /// What went wrong, naming the item.
    public var description: String {
        switch self {
        case .idNotRegistered(let id): "no coordinator is registered for \"\(id)\""
        case .invalidInputData(let id, let reason): "coordinator \"\(id)\" could not be built from its data: \(reason)"
        case .invalidNotificationPath(let reason): "invalid coordinator path: \(reason)"
        case .itemJSONInvalid(let index, let reason): "item \(index) of the coordinator path is invalid: \(reason)"
        }
    }
}
