/// The type of the value a ``NavigationBundleSpecRow`` holds, and how that value travels as JSON.
///
/// `NavigationBundleSpecType` is a value type; all operations on it are thread-safe.
///
/// A spec type is made with one of the static members, which the compiler picks from the row's value type:
///
/// | value | spec type | JSON |
/// |---|---|---|
/// | `Void` | ``unit`` | `{}` |
/// | `Bool` | ``bool`` | `true` / `false` |
/// | `Int`, `Int8` … `Int64`, `UInt` … `UInt64` | ``int``, ``int8`` … ``uint64`` | an integer, range-checked |
/// | `Float`, `Double` | ``float``, ``double`` | a number; `"NaN"`, `"Infinity"`, `"-Infinity"` |
/// | `String` | ``string`` | a string |
/// | `Date` | ``date`` | seconds since 1970 as a number |
/// | `[E]` | ``array(_:)`` of `E`'s type | an array |
/// | `W?` | ``optional(_:)`` of `W`'s type | `null` (or no key) for `nil` |
/// | ``NavigationBundle`` | ``bundle(_:)`` with its spec | an object, one key per row |
/// | any `Codable` type | ``codable(_:)`` | what its `Codable` conformance writes |
///
/// ```swift
/// let ids = NavigationBundleSpecRow("ids", type: .array(.int64))            // [Int64]
/// let note = NavigationBundleSpecRow("note", type: .optional(.string))      // String?
/// let point = NavigationBundleSpecRow("point", type: .codable(Point.self))  // Point
/// ```
///
/// Two spec types are equal when they describe the same type: `.array(.int)` equals `.array(.int)`, and
/// `.bundle(a)` equals `.bundle(b)` only when `a == b`. The ``description`` names the type as errors show it.
///
/// Upstream Kaluga has one case per array type (`IntegerArrayType`, …) and restricts optionals to non-optional
/// types. Mainline composes: ``array(_:)`` and ``optional(_:)`` take any spec type. An optional of an optional is
/// reported as misuse (`DiagnosticKind.navigationBundleNestedOptional`), because JSON cannot tell
/// `.some(nil)` from `nil`.
public struct NavigationBundleSpecType<T: Sendable>: Sendable, Hashable, CustomStringConvertible {
    // The closures are built by the static members from the closures of the types they compose, so each one works
    // on `T` itself; only `_codec` erases `T`, for the untyped bundle storage.
    let kind: _NavigationBundleKind
    /// Writes a value; throws `NavigationBundleEncodingError` naming the row when a `Codable` value fails.
    let encodeValue: @Sendable (T, any Encoder, _BundleValuePath) throws -> Void
    /// Reads a value; every failure names the row and what was expected.
    let decodeValue: @Sendable (any Decoder, _BundleValuePath) throws(NavigationBundleDecodingError) -> T
    let valuesAreEqual: @Sendable (T, T) -> Bool
    /// Why a value does not fit this type although it has the right Swift type (a nested bundle of another spec),
    /// or `nil` when it fits.
    let misfit: @Sendable (T) -> String?
    /// The value an absent row of this type holds: `.some(nil)` for an optional type, `nil` (no such value) for
    /// all others.
    let absentValue: T?

    init(
        kind: _NavigationBundleKind,
        encode: @escaping @Sendable (T, any Encoder, _BundleValuePath) throws -> Void,
        decode: @escaping @Sendable (any Decoder, _BundleValuePath) throws(NavigationBundleDecodingError) -> T,
        equal: @escaping @Sendable (T, T) -> Bool,
        misfit: @escaping @Sendable (T) -> String? = { _ in nil },
        absentValue: T? = nil
    ) {
        self.kind = kind
        self.encodeValue = encode
        self.decodeValue = decode
        self.valuesAreEqual = equal
        self.misfit = misfit
        self.absentValue = absentValue
    }

    /// The type as error messages name it: `Int32`, `[String]`, `Date?`, `NavigationBundle(Address)`,
    /// `Codable(Point)`.
    public var description: String { kind.description }

    /// Whether two spec types describe the same type.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.kind == rhs.kind }

    /// Hashes the type this spec type describes.
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// This type with `T` erased, for rows and values stored in untyped collections.
    var codec: _NavigationBundleCodec { _NavigationBundleCodec(self) }
}
