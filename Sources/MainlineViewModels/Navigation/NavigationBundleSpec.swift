import MainlineLoop

/// The rows a ``NavigationBundle`` holds: a named set of ``NavigationBundleSpecRow``s with unique keys.
///
/// `NavigationBundleSpec` is a value type; all operations on it are thread-safe.
///
/// A spec is what both ends of a navigation agree on: the side that navigates builds a bundle of it with
/// ``toBundle(_:)``, the destination reads it with ``NavigationBundle/get(_:)-(NavigationBundleSpecRow<T>)``, and
/// a route that arrives as JSON is decoded against it with ``NavigationBundle/init(json:spec:)``.
///
/// ```swift
/// enum Checkout {
///     static let orderID = NavigationBundleSpecRow("orderID", type: .int64)
///     static let coupon = NavigationBundleSpecRow("coupon", type: .optional(.string))
///     static let spec = NavigationBundleSpec("Checkout", rows: orderID, coupon)
/// }
/// ```
///
/// Keys are unique: a second row with a key already listed is reported as misuse
/// (`DiagnosticKind.navigationBundleDuplicateRow`) and left out. Two specs are equal when their names and rows
/// (keys and types, in order) are.
public struct NavigationBundleSpec: Sendable, Hashable, CustomStringConvertible {
    /// The spec's name, as errors and ``NavigationBundleSpecType/bundle(_:)`` types name it.
    public let name: String

    /// The rows, in the order given, without duplicate keys.
    public let rows: [AnyNavigationBundleSpecRow]

    // Derived from `rows`; not part of equality.
    private let indexByKey: [String: Int]

    /// Creates a spec of typed rows.
    ///
    /// - Parameters:
    ///   - name: A name for messages, such as the destination's name.
    ///   - rows: The rows, with unique keys.
    public init<each T: Sendable>(_ name: String, rows: repeat NavigationBundleSpecRow<each T>) {
        var erased: [AnyNavigationBundleSpecRow] = []
        for row in repeat each rows {
            erased.append(AnyNavigationBundleSpecRow(row))
        }
        self.init(name, rows: erased)
    }

    /// Creates a spec of rows already erased, for specs assembled at run time.
    ///
    /// - Parameters:
    ///   - name: A name for messages, such as the destination's name.
    ///   - rows: The rows, with unique keys.
    public init(_ name: String, rows: [AnyNavigationBundleSpecRow]) {
        var unique: [AnyNavigationBundleSpecRow] = []
        var indexByKey: [String: Int] = [:]
        for row in rows {
            if let index = indexByKey[row.key] {
                Diagnostics.report(
                    .navigationBundleDuplicateRow,
                    "NavigationBundleSpec \"\(name)\" lists two rows with the key \"\(row.key)\" (\(unique[index]) and "
                        + "\(row)); keys must be unique. The second one was left out."
                )
                continue
            }
            indexByKey[row.key] = unique.count
            unique.append(row)
        }
        self.name = name
        self.rows = unique
        self.indexByKey = indexByKey
    }

    /// The row with the given key, if the spec lists one.
    ///
    /// - Parameter key: A row key.
    /// - Returns: The row, or `nil`.
    /// - Complexity: O(1) on average.
    public func row(forKey key: String) -> AnyNavigationBundleSpecRow? {
        indexByKey[key].map { rows[$0] }
    }

    /// Whether the spec lists `row`: a row with its key and type.
    ///
    /// - Parameter row: A typed row.
    /// - Returns: Whether a bundle of this spec can hold it.
    public func contains<T>(_ row: NavigationBundleSpecRow<T>) -> Bool {
        self.row(forKey: row.key).map { row ~= $0 } ?? false
    }

    /// `Name(key: Type, …)`, for messages and debugging.
    public var description: String {
        "\(name)(\(rows.map(\.description).joined(separator: ", ")))"
    }

    /// Whether two specs have the same name and the same rows in the same order.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.rows == rhs.rows
    }

    /// Hashes the name and rows.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(rows)
    }
}
