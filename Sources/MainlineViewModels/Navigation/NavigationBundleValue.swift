/// One row's value, typed by the row's type, on its way into a ``NavigationBundle``.
///
/// `NavigationBundleValue` is a value type; all operations on it are thread-safe.
///
/// Make one with ``NavigationBundleSpecRow/value(_:)`` and return it from the closure of
/// ``NavigationBundleSpec/toBundle(_:)``. It is opaque: read values back with ``NavigationBundle/get(_:)-(NavigationBundleSpecRow<T>)``.
/// Two values are equal when they have the same type and equal contents.
public struct NavigationBundleValue: Sendable, Hashable, CustomStringConvertible {
    // Always paired with the codec of the type that made it, so the codec's casts back to the value's type hold.
    let value: any Sendable
    let codec: _NavigationBundleCodec

    init<T>(_ value: T, type: NavigationBundleSpecType<T>) {
        self.value = value
        self.codec = type.codec
    }

    init(erased value: any Sendable, codec: _NavigationBundleCodec) {
        self.value = value
        self.codec = codec
    }

    /// The value's type as messages name it: `Int32`, `[String]`, `Date?`.
    public var typeDescription: String { codec.kind.description }

    /// The value and its type, for debugging: `36 as Int`.
    public var description: String { "\(value) as \(typeDescription)" }

    /// Whether two values have the same type and equal contents.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.codec.kind == rhs.codec.kind && lhs.codec.equal(lhs.value, rhs.value)
    }

    /// Hashes the value's type (values of one type may share a hash; equality decides).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(codec.kind)
    }
}
