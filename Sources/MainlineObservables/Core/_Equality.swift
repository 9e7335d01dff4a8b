/// Equality for values whose type is known only at run time to be `Equatable`: how an observable of any `T`
/// conflates equal values when `T` is `Equatable` and notifies every value when it is not.
///
/// All operations are thread-safe.
enum _Equality {
    /// `==` for `T` if `T` is `Equatable` (including conditional conformances such as `Int?` or `[String]`);
    /// `nil` otherwise. The conformance is looked up once, here, not on every comparison.
    static func of<T>(_ type: T.Type) -> ((T, T) -> Bool)? {
        guard let equatable = type as? any Equatable.Type else { return nil }
        return comparing(equatable, as: type)
    }

    private static func comparing<E: Equatable, T>(_: E.Type, as _: T.Type) -> (T, T) -> Bool {
        // `E` is `T`, opened as `Equatable`: reinterpreting a value as its own type is free and exact.
        { lhs, rhs in unsafeBitCast(lhs, to: E.self) == unsafeBitCast(rhs, to: E.self) }
    }
}
