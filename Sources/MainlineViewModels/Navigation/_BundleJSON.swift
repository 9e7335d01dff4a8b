import Foundation

/// The JSON plumbing of bundles: coding keys for row keys, and reading scalars with errors that name the row,
/// what was expected and what was found.
///
/// Works on any `Encoder`/`Decoder` (a route's `JSONDecoder`, a test's); only `NavigationBundle.jsonData()` and
/// `init(json:spec:)` choose the `JSONEncoder`/`JSONDecoder` settings.
enum _BundleJSON {
    /// A coding key for any row key.
    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(_ key: String) {
            stringValue = key
        }

        init?(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            nil
        }
    }

    /// Encodes with a closure, so a row's value is written through its spec type, in any container.
    struct Writer: Encodable {
        let write: (any Encoder) throws -> Void

        func encode(to encoder: any Encoder) throws {
            try write(encoder)
        }
    }

    /// The strings non-finite floating-point values are written as (JSON numbers cannot hold them); the same
    /// spellings as `JSONEncoder`'s `convertToString` examples and JavaScript.
    static let nan = "NaN"
    static let infinity = "Infinity"
    static let negativeInfinity = "-Infinity"

    /// Reads a single JSON scalar of type `V`.
    static func decode<V: Decodable>(
        _ type: V.Type,
        from decoder: any Decoder,
        at path: _BundleValuePath,
        expected: _NavigationBundleKind
    ) throws(NavigationBundleDecodingError) -> V {
        do {
            return try decoder.singleValueContainer().decode(V.self)
        } catch {
            throw .invalidValue(row: "\(path)", expected: "\(expected)", reason: "found \(found(in: decoder))")
        }
    }

    /// Writes a floating-point value: a JSON number when finite, otherwise one of the non-finite spellings.
    static func encode<V: BinaryFloatingPoint & Encodable>(_ value: V, to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if value.isFinite {
            try container.encode(value)
        } else {
            try container.encode(value.isNaN ? nan : value < 0 ? negativeInfinity : infinity)
        }
    }

    /// Reads a floating-point value written by ``encode(_:to:)``: a finite number in `V`'s range, or one of the
    /// non-finite spellings.
    ///
    /// A number beyond `V`'s range (`1e39` for a `Float`) fails: decoders may round it to an infinity, which would
    /// turn a sender's mistake into a value the sender never wrote.
    static func decodeFloatingPoint<V: BinaryFloatingPoint & Decodable>(
        _ type: V.Type,
        from decoder: any Decoder,
        at path: _BundleValuePath,
        expected: _NavigationBundleKind
    ) throws(NavigationBundleDecodingError) -> V {
        if let container = try? decoder.singleValueContainer() {
            // The string first: a decoder whose strategy converts non-finite strings would read any of them as a
            // number, and a string is only ever one of the spellings.
            if let text = try? container.decode(String.self) {
                switch text {
                case nan: return .nan
                case infinity: return .infinity
                case negativeInfinity: return -.infinity
                default: break
                }
            } else if let value = try? container.decode(V.self), value.isFinite {
                return value
            }
        }
        throw .invalidValue(row: "\(path)", expected: "\(expected)", reason: "found \(found(in: decoder))")
    }

    /// Reads a finite JSON number, such as a date's seconds since 1970: never a string, not even a non-finite
    /// spelling the decoder's strategy would convert.
    static func decodeFiniteNumber(
        from decoder: any Decoder,
        at path: _BundleValuePath,
        expected: _NavigationBundleKind
    ) throws(NavigationBundleDecodingError) -> Double {
        if let container = try? decoder.singleValueContainer(), (try? container.decode(String.self)) == nil,
            let value = try? container.decode(Double.self), value.isFinite
        {
            return value
        }
        throw .invalidValue(row: "\(path)", expected: "\(expected)", reason: "found \(found(in: decoder))")
    }

    /// The date strategy of the decoders bundles choose, for dates inside `Codable` values: seconds since 1970 as a
    /// finite number (a `Date` made from NaN or an infinity traps when printed, and is not equal to itself).
    static func decodeDate(from decoder: any Decoder) throws -> Date {
        let container = try decoder.singleValueContainer()
        if (try? container.decode(String.self)) == nil {
            let seconds = try container.decode(Double.self)
            if seconds.isFinite { return Date(timeIntervalSince1970: seconds) }
        }
        throw DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "found \(found(in: decoder)); a date is a finite number of seconds since 1970"
            )
        )
    }

    /// What the decoder holds, in words, for an error: `null`, `true`, `the number 300`, `the string "abc"`,
    /// `an array`, `an object`.
    static func found(in decoder: any Decoder) -> String {
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() { return "null" }
            if let value = try? container.decode(Bool.self) { return "\(value)" }
            if let value = try? container.decode(Int64.self) { return "the number \(value)" }
            if let value = try? container.decode(UInt64.self) { return "the number \(value)" }
            // Strings before `Double`: a decoder that converts non-finite spellings reads "NaN" as a `Double` too.
            if let value = try? container.decode(String.self) { return "the string \(quoted(value))" }
            if let value = try? container.decode(Double.self) { return "the number \(value)" }
        }
        if (try? decoder.unkeyedContainer()) != nil { return "an array" }
        if (try? decoder.container(keyedBy: Key.self)) != nil { return "an object" }
        // Everything a JSON value can be was tried above but a number beyond `Double`'s range.
        return "a value out of range"
    }

    /// Why a `Codable` value failed to decode or encode, in words, with the path inside the payload; no final
    /// period, since errors embed it in a sentence.
    static func reason(_ error: any Error) -> String {
        var text = sentence(error)
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }

    private static func sentence(_ error: any Error) -> String {
        func at(_ context: DecodingError.Context) -> String {
            context.codingPath.isEmpty ? "" : " at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        }
        switch error {
        case DecodingError.typeMismatch(let type, let context):
            return "expected \(type)\(at(context)): \(context.debugDescription)"
        case DecodingError.valueNotFound(let type, let context):
            return "no \(type) value\(at(context)): \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, let context):
            return "no key \(quoted(key.stringValue))\(at(context))"
        case DecodingError.dataCorrupted(let context):
            return "invalid data\(at(context)): \(context.debugDescription)"
        case EncodingError.invalidValue(let value, let context):
            return "cannot encode \(value): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }

    /// A string in quotes, shortened to 60 characters: errors repeat input from outside the process.
    static func quoted(_ text: String) -> String {
        text.count > 60 ? "\"\(text.prefix(60))…\"" : "\"\(text)\""
    }
}
