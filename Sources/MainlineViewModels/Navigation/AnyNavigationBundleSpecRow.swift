/// A ``NavigationBundleSpecRow`` of any type: what a ``NavigationBundleSpec`` lists and
/// ``NavigationBundleSpec/toBundle(_:)`` passes.
///
/// `AnyNavigationBundleSpecRow` is a value type; all operations on it are thread-safe.
///
/// Compare it with a typed row by switching over it (`case Profile.age:`) or with `==` on
/// `AnyNavigationBundleSpecRow(Profile.age)`. Two rows are equal when their keys and types are.
public struct AnyNavigationBundleSpecRow: Sendable, Hashable, CustomStringConvertible {
    /// The key the row's value is stored under.
    public let key: String

    /// The row's type, with its value type erased.
    let codec: _NavigationBundleCodec

    /// Erases the value type of `row`.
    ///
    /// - Parameter row: The typed row.
    public init<T>(_ row: NavigationBundleSpecRow<T>) {
        key = row.key
        codec = row.type.codec
    }

    /// The row's type as messages name it: `Int32`, `[String]`, `Date?`, `NavigationBundle(Address)`.
    public var typeDescription: String { codec.kind.description }

    /// Whether the row is optional, so that a bundle may leave it out (it then holds `nil`).
    public var isOptional: Bool { codec.kind.isOptional }

    /// `key: Type`, for messages and debugging.
    public var description: String { "\(key): \(typeDescription)" }

    /// Whether two rows have the same key and type.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.key == rhs.key && lhs.codec.kind == rhs.codec.kind
    }

    /// Hashes the row's key and type.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(codec.kind)
    }
}
