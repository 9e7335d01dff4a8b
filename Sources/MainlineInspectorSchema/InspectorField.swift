/// A field of the inspector's schema that every document carries, `null` when it has no value, and that a reader
/// takes as `nil` when it is missing, `null` or of another type: a document of another Mainline version, or of a loop
/// that describes less, still reads.
///
/// `InspectorField` is a value type; all operations on it are thread-safe.
@propertyWrapper
package struct InspectorField<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    /// The value, or `nil` (encoded as `null`).
    package var wrappedValue: Value?

    /// A field holding `wrappedValue`.
    package init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    /// Reads the value liberally: `null` or a value of another type reads as `nil`.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try? container.decode(Value.self)
    }

    /// Writes the value, or `null`.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

/// A list of the inspector's schema: always written (`[]` when empty), read as empty when it is missing, `null` or
/// not a list.
///
/// `InspectorList` is a value type; all operations on it are thread-safe.
@propertyWrapper
package struct InspectorList<Element: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    /// The elements.
    package var wrappedValue: [Element]

    /// A list holding `wrappedValue`.
    package init(wrappedValue: [Element]) {
        self.wrappedValue = wrappedValue
    }

    /// Reads the elements liberally: `null` or a value that is not a list reads as empty.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? [] : (try? container.decode([Element].self)) ?? []
    }

    /// Writes the elements.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

// A missing key reads as a field without a value (the synthesized `init(from:)` asks for the key by these overloads).
extension KeyedDecodingContainer {
    /// A field whose key is missing reads as `nil`.
    package func decode<Value>(_ type: InspectorField<Value>.Type, forKey key: Key) throws -> InspectorField<Value> {
        try decodeIfPresent(type, forKey: key) ?? InspectorField(wrappedValue: nil)
    }

    /// A list whose key is missing reads as empty.
    package func decode<Element>(_ type: InspectorList<Element>.Type, forKey key: Key) throws -> InspectorList<Element>
    {
        try decodeIfPresent(type, forKey: key) ?? InspectorList(wrappedValue: [])
    }
}
