/// What a `NavigationBundleSpecType` is, as a hashable descriptor: the identity of a bundle type.
///
/// Two spec types are the same type exactly when their kinds are equal, which is what makes a row with the same
/// key but another type "of the wrong type" in `NavigationBundle.get(_:)`, and what `toBundle` checks a returned
/// value against. The description is the type as error messages name it (`[Int32]`, `String?`,
/// `NavigationBundle(Address)`, `Codable(Point)`).
///
/// A value type; all operations on it are thread-safe.
indirect enum _NavigationBundleKind: Hashable, Sendable, CustomStringConvertible {
    case unit
    case bool
    case int, int8, int16, int32, int64
    case uint, uint8, uint16, uint32, uint64
    case float, double
    case string
    case date
    case array(_NavigationBundleKind)
    case optional(_NavigationBundleKind)
    case bundle(NavigationBundleSpec)
    // The metatype's identity decides equality; the name is for messages (it is a function of the identity, so
    // the synthesized conformances stay consistent).
    case codable(ObjectIdentifier, name: String)

    /// Whether a row of this kind may be left out: an absent row of an optional kind holds `nil`.
    var isOptional: Bool {
        if case .optional = self { true } else { false }
    }

    var description: String {
        switch self {
        case .unit: "Unit"
        case .bool: "Bool"
        case .int: "Int"
        case .int8: "Int8"
        case .int16: "Int16"
        case .int32: "Int32"
        case .int64: "Int64"
        case .uint: "UInt"
        case .uint8: "UInt8"
        case .uint16: "UInt16"
        case .uint32: "UInt32"
        case .uint64: "UInt64"
        case .float: "Float"
        case .double: "Double"
        case .string: "String"
        case .date: "Date"
        case .array(let element): "[\(element)]"
        case .optional(let wrapped): "\(wrapped)?"
        case .bundle(let spec): "NavigationBundle(\(spec.name))"
        case .codable(_, let name): "Codable(\(name))"
        }
    }
}
