/// Equality for values whose type is known only at run time to be `Equatable`: how an observable of any `T`
/// conflates equal values when `T` is `Equatable` and notifies every value when it is not.
///
/// All operations are thread-safe.
enum _Equality {
    /// `==` for `T` if `T` is `Equatable` (including conditional conformances such as `Int?` or `[String]`);
    /// `nil` otherwise.
    static func of<T>(_ type: T.Type) -> (@Sendable (T, T) -> Bool)? {
        guard type is any Equatable.Type else { return nil }
        return { lhs, rhs in
            guard let lhs = lhs as? any Equatable else { return false }
            return lhs._isEqual(to: rhs)
        }
    }
}

extension Equatable {
    /// `self == other` when `other` is a `Self`.
    fileprivate func _isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
