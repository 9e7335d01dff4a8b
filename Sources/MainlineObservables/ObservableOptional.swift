/// A value that may be absent, where the value itself may be `nil`: what an uninitialized observable holds.
///
/// `ObservableOptional` is a value type; all operations on it are thread-safe when `T` is `Sendable`.
///
/// Swift's `Optional` cannot tell "nothing yet" from "a `nil` value" when the value type is itself optional;
/// `ObservableOptional<String?>` can: `.nothing` is not `.value(nil)`.
///
/// ```swift
/// let waiting: ObservableOptional<String?> = .nothing
/// let cleared: ObservableOptional<String?> = .value(nil)
/// waiting == cleared   // false
/// ```
public enum ObservableOptional<T> {
    /// A value (which may be `nil` when `T` is optional).
    case value(T)
    /// No value yet.
    case nothing

    /// The value, or `nil` for ``nothing``. (For an optional `T`, `.value(nil)` also reads as `nil` here; switch
    /// over the case to tell them apart.)
    public var valueOrNil: T? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// Whether this is ``nothing``.
    public var isNothing: Bool {
        if case .nothing = self { return true }
        return false
    }
}

extension ObservableOptional: Equatable where T: Equatable {}
extension ObservableOptional: Hashable where T: Hashable {}
extension ObservableOptional: Sendable where T: Sendable {}
