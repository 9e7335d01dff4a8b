/// A JSON value, as the inspector describes a loop, a mailbox, a view model or a coordinator: built by the describers
/// registered with ``_InspectionRegistry`` and rendered by ``json()`` (MainlineLoop does not import Foundation).
///
/// Not API: public to the package's own layers only. `_InspectionValue` is a value type; all operations on it are
/// thread-safe.
///
/// ```swift
/// let mailbox: _InspectionValue = .object([("name", .string("jobs")), ("depth", .int(3)), ("capacity", .null)])
/// mailbox.json()  // {"name":"jobs","depth":3,"capacity":null}
/// ```
///
/// Objects keep their keys in the order they were given, so a document reads the same every time; two objects are
/// equal only when their keys come in the same order.
package enum _InspectionValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A number with a fraction; a non-finite one is rendered as `null` (JSON has no infinity and no NaN).
    case double(Double)
    /// A string; ``json()`` escapes it.
    case string(String)
    /// An array.
    case array([_InspectionValue])
    /// An object, its keys in order.
    case object([(String, _InspectionValue)])

    /// Whether two values are the same JSON: same case and contents, objects' keys in the same order, and NaN equal
    /// to itself (both render as `null`).
    package static func == (lhs: _InspectionValue, rhs: _InspectionValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.int(let left), .int(let right)): left == right
        // Bitwise for NaN's sake: a value is equal to itself, as `json()` renders both the same.
        case (.double(let left), .double(let right)): left == right || (left.isNaN && right.isNaN)
        case (.string(let left), .string(let right)): left == right
        case (.array(let left), .array(let right)): left == right
        case (.object(let left), .object(let right)):
            left.count == right.count && zip(left, right).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// An optional string: `.string` when there is one, `.null` when not.
    ///
    /// - Parameter text: The string, if any.
    /// - Returns: The value.
    package static func nullable(_ text: String?) -> _InspectionValue {
        text.map { .string($0) } ?? .null
    }

    /// The value of `key` in an object (the first, if the object repeats it); `nil` for a missing key or a value
    /// that is not an object.
    ///
    /// - Parameter key: The key.
    package subscript(key: String) -> _InspectionValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The elements of an array; `nil` for any other value.
    package var arrayValue: [_InspectionValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The text of a string; `nil` for any other value.
    package var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The value as one line of compact JSON (RFC 8259): no spaces, no line breaks; strings escaped (quote, backslash
    /// and every control character); non-finite numbers as `null`.
    ///
    /// - Returns: The JSON text.
    /// - Complexity: O(*n*) in the size of the value.
    package func json() -> String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null:
            output += "null"
        case .bool(let value):
            output += value ? "true" : "false"
        case .int(let value):
            output += String(value)
        case .double(let value):
            // Swift's shortest round-trip form ("0.25", "1e-05", "1.0") is always a valid JSON number when finite.
            output += value.isFinite ? String(value) : "null"
        case .string(let text):
            Self.writeString(text, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                // The rest of the control characters, DEL, and the two separators JavaScript reads as line breaks:
                // escaped, so a document stays one line for every reader.
                let hex = String(scalar.value, radix: 16, uppercase: false)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
