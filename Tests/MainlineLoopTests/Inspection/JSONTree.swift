import Foundation
import MainlineInspectorSchema

/// Any JSON document, decoded with the inspector's own coder (`InspectorJSON`), for tests that check what is on the
/// wire beyond the schema's types: which keys a line has, whether a field is `null` or missing.
///
/// `JSONTree` is a value type; all operations on it are thread-safe.
enum JSONTree: Decodable, Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONTree])
    case object([String: JSONTree])

    /// An integer, as a number.
    static func int(_ value: Int) -> JSONTree { .number(Double(value)) }

    /// Reads whatever the value is.
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONTree].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONTree].self))
        }
    }

    /// `line` read as JSON.
    init(line: String) throws {
        self = try InspectorJSON.decode(JSONTree.self, from: line.utf8)
    }

    /// The value of `key` in an object; `nil` for a missing key or a value that is not an object.
    subscript(key: String) -> JSONTree? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The keys of an object; `nil` for any other value.
    var keys: Set<String>? {
        guard case .object(let members) = self else { return nil }
        return Set(members.keys)
    }

    /// The elements of an array; `nil` for any other value.
    var arrayValue: [JSONTree]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The text of a string; `nil` for any other value.
    var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }
}
