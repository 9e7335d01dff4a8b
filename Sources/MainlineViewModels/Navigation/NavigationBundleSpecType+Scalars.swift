import Foundation

// The scalar spec types: unit, Bool, the integer and floating-point types, String and Date. Each is a computed static
// property, because a generic type cannot have stored static properties; building one costs a few closures.

extension NavigationBundleSpecType where T == Void {
    /// A row that holds no value: its presence in an action is the message (upstream Kaluga's `UnitType`).
    ///
    /// JSON: an empty object, `{}`; decoding accepts any object.
    public static var unit: Self {
        Self(
            kind: .unit,
            encode: { _, encoder, _ in _ = encoder.container(keyedBy: _BundleJSON.Key.self) },
            decode: { (decoder, path) throws(NavigationBundleDecodingError) in
                guard (try? decoder.container(keyedBy: _BundleJSON.Key.self)) != nil else {
                    throw .invalidValue(
                        row: "\(path)",
                        expected: "Unit ({})",
                        reason: "found \(_BundleJSON.found(in: decoder))"
                    )
                }
            },
            equal: { _, _ in true }
        )
    }
}

extension NavigationBundleSpecType where T == Bool {
    /// A row that holds a `Bool`.
    ///
    /// JSON: `true` or `false`; a number or string fails to decode.
    public static var bool: Self { scalar(.bool) }
}

extension NavigationBundleSpecType where T == Int {
    /// A row that holds an `Int`.
    ///
    /// JSON: an integer; a fraction, or a number outside `Int.min...Int.max`, fails to decode.
    public static var int: Self { scalar(.int) }
}

extension NavigationBundleSpecType where T == Int8 {
    /// A row that holds an `Int8`.
    ///
    /// JSON: an integer; a fraction, or a number outside `Int8.min...Int8.max`, fails to decode.
    public static var int8: Self { scalar(.int8) }
}

extension NavigationBundleSpecType where T == Int16 {
    /// A row that holds an `Int16`.
    ///
    /// JSON: an integer; a fraction, or a number outside `Int16.min...Int16.max`, fails to decode.
    public static var int16: Self { scalar(.int16) }
}

extension NavigationBundleSpecType where T == Int32 {
    /// A row that holds an `Int32`.
    ///
    /// JSON: an integer; a fraction, or a number outside `Int32.min...Int32.max`, fails to decode.
    public static var int32: Self { scalar(.int32) }
}

extension NavigationBundleSpecType where T == Int64 {
    /// A row that holds an `Int64`.
    ///
    /// JSON: an integer; a fraction, or a number outside `Int64.min...Int64.max`, fails to decode.
    public static var int64: Self { scalar(.int64) }
}

extension NavigationBundleSpecType where T == UInt {
    /// A row that holds an `UInt`.
    ///
    /// JSON: an integer; a fraction, or a number outside `UInt.min...UInt.max`, fails to decode.
    public static var uint: Self { scalar(.uint) }
}

extension NavigationBundleSpecType where T == UInt8 {
    /// A row that holds an `UInt8`.
    ///
    /// JSON: an integer; a fraction, or a number outside `UInt8.min...UInt8.max`, fails to decode.
    public static var uint8: Self { scalar(.uint8) }
}

extension NavigationBundleSpecType where T == UInt16 {
    /// A row that holds an `UInt16`.
    ///
    /// JSON: an integer; a fraction, or a number outside `UInt16.min...UInt16.max`, fails to decode.
    public static var uint16: Self { scalar(.uint16) }
}

extension NavigationBundleSpecType where T == UInt32 {
    /// A row that holds an `UInt32`.
    ///
    /// JSON: an integer; a fraction, or a number outside `UInt32.min...UInt32.max`, fails to decode.
    public static var uint32: Self { scalar(.uint32) }
}

extension NavigationBundleSpecType where T == UInt64 {
    /// A row that holds an `UInt64`.
    ///
    /// JSON: an integer; a fraction, or a number outside `UInt64.min...UInt64.max`, fails to decode.
    public static var uint64: Self { scalar(.uint64) }
}

extension NavigationBundleSpecType where T == Float {
    /// A row that holds a `Float`.
    ///
    /// JSON: a number, written in the shortest form that reads back as the same `Float`, so every finite value
    /// round-trips exactly; NaN and the infinities, which JSON numbers cannot hold, are the strings `"NaN"`,
    /// `"Infinity"` and `"-Infinity"`. A number beyond `Float`'s range (`1e39`) fails to decode rather than becoming
    /// an infinity. NaN equals NaN in bundle equality.
    public static var float: Self { floatingPoint(.float) }
}

extension NavigationBundleSpecType where T == Double {
    /// A row that holds a `Double`.
    ///
    /// JSON: a number, written in the shortest form that reads back as the same `Double`, so every finite value
    /// round-trips exactly; NaN and the infinities are the strings `"NaN"`, `"Infinity"` and `"-Infinity"`. A number
    /// beyond `Double`'s range fails to decode. NaN equals NaN in bundle equality.
    public static var double: Self { floatingPoint(.double) }
}

extension NavigationBundleSpecType where T == String {
    /// A row that holds a `String`.
    ///
    /// JSON: a string.
    public static var string: Self { scalar(.string) }
}

extension NavigationBundleSpecType where T == Date {
    /// A row that holds a `Date`.
    ///
    /// JSON: the date's seconds since 1970-01-01T00:00:00Z (`timeIntervalSince1970`) as a number, the encoding
    /// most languages read directly, whatever the date strategy of the encoder it is written with. It must be a
    /// finite number: `"NaN"` or `"Infinity"` fails to decode, naming the row.
    ///
    /// - Note: The number is a `Double`, written exactly. A date made from a whole number of seconds since 1970, or
    ///   from any number of seconds since 1970 (`Date(timeIntervalSince1970:)`) between 1985 and 2032, round-trips
    ///   exactly. `Date` itself counts from 2001, so another date (such as `Date()`) may come back moved by half a
    ///   unit in the last place of its seconds since 1970 at most: under a quarter of a microsecond in this era.
    public static var date: Self {
        let kind = _NavigationBundleKind.date
        return Self(
            kind: kind,
            encode: { value, encoder, _ in try _BundleJSON.encode(value.timeIntervalSince1970, to: encoder) },
            decode: { (decoder, path) throws(NavigationBundleDecodingError) in
                Date(timeIntervalSince1970: try _BundleJSON.decodeFiniteNumber(from: decoder, at: path, expected: kind))
            },
            equal: { $0 == $1 }
        )
    }
}

extension NavigationBundleSpecType where T: Codable & Equatable {
    /// A spec type for a value JSON holds natively, read and written through its own `Codable` conformance.
    static func scalar(_ kind: _NavigationBundleKind) -> Self {
        Self(
            kind: kind,
            encode: { value, encoder, _ in
                var container = encoder.singleValueContainer()
                try container.encode(value)
            },
            decode: { (decoder, path) throws(NavigationBundleDecodingError) in
                try _BundleJSON.decode(T.self, from: decoder, at: path, expected: kind)
            },
            equal: { $0 == $1 }
        )
    }
}

extension NavigationBundleSpecType where T: BinaryFloatingPoint & Codable {
    /// A spec type for `Float` or `Double`: numbers, and strings for the values JSON numbers cannot hold.
    static func floatingPoint(_ kind: _NavigationBundleKind) -> Self {
        Self(
            kind: kind,
            encode: { value, encoder, _ in try _BundleJSON.encode(value, to: encoder) },
            decode: { (decoder, path) throws(NavigationBundleDecodingError) in
                try _BundleJSON.decodeFloatingPoint(T.self, from: decoder, at: path, expected: kind)
            },
            // NaN equals NaN here, as in Kotlin's `Double.equals`: a row that holds "NaN" is one value, and a bundle
            // must equal itself (`==` on the numbers would make it unequal, and break `Hashable`).
            equal: { $0 == $1 || ($0.isNaN && $1.isNaN) }
        )
    }
}
