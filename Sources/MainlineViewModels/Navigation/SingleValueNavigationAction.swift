/// A navigation action that carries one value, in a bundle of one row (upstream Kaluga's
/// `SingleValueNavigationAction` and `SingleValueNavigationSpec`).
///
/// `SingleValueNavigationAction` is a value type; all operations on it are thread-safe.
///
/// ```swift
/// navigator.navigate(SingleValueNavigationAction(1_042, type: .int64))
///
/// // At the destination, from the action or from its bundle (for example decoded from a route):
/// let orderID = try action.bundle?.get(.int64)
/// ```
///
/// The bundle's spec is ``spec(_:)`` of the value's type, with one row, ``row(_:)``, keyed `"value"`; as JSON it
/// is `{"value": …}`.
public struct SingleValueNavigationAction<T: Sendable>: NavigationAction {
    /// The value the action carries.
    public let value: T

    /// The type of the value, which decides the bundle's spec.
    public let type: NavigationBundleSpecType<T>

    /// The bundle holding ``value`` under ``row(_:)`` of ``type``.
    public let bundle: NavigationBundle?

    /// Creates an action carrying `value`.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - type: The value's type, such as `.string` or `.codable(Point.self)`.
    public init(_ value: T, type: NavigationBundleSpecType<T>) {
        self.value = value
        self.type = type
        let row = Self.row(type)
        self.bundle = Self.spec(type).toBundle { _ in row.value(value) }
    }

    /// The one row of a single-value bundle of `type`: key `"value"`.
    ///
    /// - Parameter type: The value's type.
    /// - Returns: The row.
    public static func row(_ type: NavigationBundleSpecType<T>) -> NavigationBundleSpecRow<T> {
        NavigationBundleSpecRow("value", type: type)
    }

    /// The spec of a single-value bundle of `type`: named `SingleValue(Type)`, with ``row(_:)`` alone.
    ///
    /// - Parameter type: The value's type.
    /// - Returns: The spec, for decoding such a bundle from JSON.
    public static func spec(_ type: NavigationBundleSpecType<T>) -> NavigationBundleSpec {
        NavigationBundleSpec("SingleValue(\(type))", rows: row(type))
    }
}

extension SingleValueNavigationAction: Equatable where T: Equatable {
    /// Whether two actions carry equal values of the same type.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.type == rhs.type && lhs.value == rhs.value
    }
}

extension SingleValueNavigationAction: Hashable where T: Hashable {
    /// Hashes the value and its type.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(value)
    }
}
