/// Why a bundle could not be written as JSON: a `Codable` value of a row failed to encode.
///
/// `NavigationBundleEncodingError` is a value type; all operations on it are thread-safe.
///
/// Every other row type always encodes (non-finite numbers are written as strings), so this names the row of a
/// ``NavigationBundleSpecType/codable(_:)`` value whose `encode(to:)` threw.
public struct NavigationBundleEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The path of the row (`point`, `address.location`, `stops[1]`), or `""` for the bundle as a whole.
    public var row: String

    /// The row's type.
    public var type: String

    /// Why it failed, from the value's own encoding error.
    public var reason: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - row: The path of the row, or `""` for the bundle as a whole.
    ///   - type: The row's type.
    ///   - reason: Why it failed.
    public init(row: String, type: String, reason: String) {
        self.row = row
        self.type = type
        self.reason = reason
    }

    /// What went wrong, naming the row.
    public var description: String {
        row.isEmpty
            ? "The bundle (\(type)) could not be written as JSON: \(reason)."
            : "Row \"\(row)\" (\(type)) could not be written as JSON: \(reason)."
    }
}
