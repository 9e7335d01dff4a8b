/// Why ``NavigationBundle/get(_:)-(NavigationBundleSpecRow<T>)`` could not return a row's value.
///
/// `NavigationBundleGetError` is a value type; all operations on it are thread-safe.
public enum NavigationBundleGetError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bundle has no value for the row: its spec has no row with that key (a row of another spec), or the
    /// bundle was built without a value for it.
    ///
    /// - Parameters:
    ///   - row: The key of the row asked for.
    ///   - spec: The name of the bundle's spec.
    case rowNotInBundle(row: String, spec: String)

    /// The bundle's row with that key has another type than the row asked for (a row of another spec with the
    /// same key), or holds a value of another type.
    ///
    /// - Parameters:
    ///   - row: The key of the row asked for.
    ///   - expected: The type of the row asked for.
    ///   - found: The type the bundle has for that key.
    case wrongType(row: String, expected: String, found: String)

    /// The key of the row asked for.
    public var row: String {
        switch self {
        case .rowNotInBundle(let row, _), .wrongType(let row, _, _): row
        }
    }

    /// What went wrong, naming the row.
    public var description: String {
        switch self {
        case .rowNotInBundle(let row, let spec):
            "The bundle of spec \"\(spec)\" holds no row \"\(row)\"."
        case .wrongType(let row, let expected, let found):
            "Row \"\(row)\" was read as \(expected), but the bundle holds a value of type \(found) for it."
        }
    }
}
