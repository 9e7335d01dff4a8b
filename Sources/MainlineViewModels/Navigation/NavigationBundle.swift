/// Values for the rows of a ``NavigationBundleSpec``: the data a navigation action carries to its destination.
///
/// `NavigationBundle` is a value type; all operations on it are thread-safe.
///
/// Build one with ``NavigationBundleSpec/toBundle(_:)`` and read it with ``get(_:)-(NavigationBundleSpecRow<T>)``,
/// which returns the row's value with the row's Swift type or throws a ``NavigationBundleGetError`` naming the row:
///
/// ```swift
/// let orderID = try bundle.get(Checkout.orderID)  // Int64
/// let coupon = try bundle.get(Checkout.coupon)    // String?
/// ```
///
/// Bundles travel as JSON objects, one key per row (``jsonData()`` and ``init(json:spec:)``; `Encodable`, and
/// `DecodableWithConfiguration` with the spec, for embedding in a route's own `Codable` types). Two bundles are
/// equal when their specs and values are.
public struct NavigationBundle: Sendable, Hashable, CustomStringConvertible {
    /// The spec this bundle holds values for.
    public let spec: NavigationBundleSpec

    // One value per row of `spec`, by key; a row is missing only after misuse (see `toBundle`).
    let values: [String: NavigationBundleValue]

    init(spec: NavigationBundleSpec, values: [String: NavigationBundleValue]) {
        self.spec = spec
        self.values = values
    }

    /// The value of `row`, with the row's type (upstream Kaluga's `get(row)`).
    ///
    /// A row is found by its key and type, whichever spec declared it; a row of another spec with the same key and
    /// type reads the same value.
    ///
    /// - Parameter row: A row of this bundle's spec.
    /// - Returns: The row's value; `nil` for an optional row left out.
    /// - Throws: ``NavigationBundleGetError/rowNotInBundle(row:spec:)`` when the spec has no row with that key (a
    ///   row of another spec) or the bundle holds no value for it;
    ///   ``NavigationBundleGetError/wrongType(row:expected:found:)`` when the row's type is not the type of the
    ///   spec's row with that key, or of the value the bundle holds for it.
    public func get<T>(_ row: NavigationBundleSpecRow<T>) throws(NavigationBundleGetError) -> T {
        guard let specRow = spec.row(forKey: row.key) else {
            throw .rowNotInBundle(row: row.key, spec: spec.name)
        }
        guard specRow.codec.kind == row.type.kind else {
            throw .wrongType(row: row.key, expected: row.type.description, found: specRow.typeDescription)
        }
        guard let stored = values[row.key] else {
            throw .rowNotInBundle(row: row.key, spec: spec.name)
        }
        guard stored.codec.kind == row.type.kind, let value = stored.value as? T else {
            throw .wrongType(row: row.key, expected: row.type.description, found: stored.typeDescription)
        }
        return value
    }

    /// The value of the bundle of a ``SingleValueNavigationAction`` (upstream Kaluga's `get(type)`).
    ///
    /// - Parameter type: The type of the action's value.
    /// - Returns: The value.
    /// - Throws: ``NavigationBundleGetError`` when this is not the bundle of a single value of `type`.
    public func get<T>(_ type: NavigationBundleSpecType<T>) throws(NavigationBundleGetError) -> T {
        try get(SingleValueNavigationAction.row(type))
    }

    /// `Spec(key: value, …)`, for debugging.
    public var description: String {
        let entries = spec.rows.map { row in "\(row.key): \(values[row.key].map { "\($0.value)" } ?? "<missing>")" }
        return "\(spec.name)(\(entries.joined(separator: ", ")))"
    }

    /// Whether two bundles have equal specs and equal values.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.spec == rhs.spec && lhs.values == rhs.values
    }

    /// Hashes the spec and which rows hold values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(spec)
        for row in spec.rows {
            hasher.combine(values[row.key] != nil)
        }
    }
}
