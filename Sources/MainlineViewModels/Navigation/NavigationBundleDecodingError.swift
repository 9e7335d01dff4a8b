/// Why a JSON payload is not a bundle of the spec it was decoded with: the payload, the row and what was expected.
///
/// `NavigationBundleDecodingError` is a value type; all operations on it are thread-safe.
///
/// A row is named by its path from the top of the payload: `name`, `address.street` inside a nested bundle,
/// `ids[2]` inside an array. Decoding builds a new bundle or throws: nothing is ever half applied.
public enum NavigationBundleDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The payload is not JSON, or its top level is not an object.
    ///
    /// - Parameters:
    ///   - spec: The name of the spec it was decoded with.
    ///   - reason: What is wrong with it.
    case malformedPayload(spec: String, reason: String)

    /// A row that is not optional has no key in the payload.
    ///
    /// - Parameters:
    ///   - row: The path of the row.
    ///   - expected: The row's type.
    case missingRow(row: String, expected: String)

    /// A row's value is not a value of the row's type.
    ///
    /// - Parameters:
    ///   - row: The path of the row (or of the element in it).
    ///   - expected: The row's (or element's) type.
    ///   - reason: What was found instead, or why a `Codable` value did not decode.
    case invalidValue(row: String, expected: String, reason: String)

    /// The path of the row at fault, or `nil` when the payload as a whole is.
    public var row: String? {
        switch self {
        case .malformedPayload: nil
        case .missingRow(let row, _), .invalidValue(let row, _, _): row
        }
    }

    /// What went wrong, naming the row and what was expected.
    public var description: String {
        switch self {
        case .malformedPayload(let spec, let reason):
            "The payload is not a bundle of spec \"\(spec)\": \(reason)."
        case .missingRow(let row, let expected):
            "Row \"\(row)\" is missing: expected \(expected)."
        case .invalidValue(let row, let expected, let reason):
            "Row \"\(row)\": expected \(expected); \(reason)."
        }
    }
}
