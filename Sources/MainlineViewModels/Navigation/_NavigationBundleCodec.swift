/// A ``NavigationBundleSpecType`` with its value type erased: what rows and values keep in untyped storage.
///
/// Every erased value is paired with the codec of the type that made it, so the casts back to `T` succeed; they
/// are still checked, and a failed one is reported as an error or inequality, never a trap.
///
/// A value type; all operations on it are thread-safe.
struct _NavigationBundleCodec: Sendable {
    let kind: _NavigationBundleKind
    let encode: @Sendable (any Sendable, any Encoder, _BundleValuePath) throws -> Void
    let decode: @Sendable (any Decoder, _BundleValuePath) throws(NavigationBundleDecodingError) -> any Sendable
    let equal: @Sendable (any Sendable, any Sendable) -> Bool
    let misfit: @Sendable (any Sendable) -> String?
    /// The value an absent row of this type holds (`nil` of the optional type), or `nil` when it must be present.
    let absentValue: (any Sendable)?

    init<T>(_ type: NavigationBundleSpecType<T>) {
        let kind = type.kind
        self.kind = kind
        encode = { value, encoder, path in
            guard let value = value as? T else {
                throw NavigationBundleEncodingError(
                    row: "\(path)",
                    type: "\(kind)",
                    reason: "the value is not a \(T.self)"
                )
            }
            try type.encodeValue(value, encoder, path)
        }
        decode = { (decoder, path) throws(NavigationBundleDecodingError) -> any Sendable in
            try type.decodeValue(decoder, path)
        }
        equal = { lhs, rhs in
            guard let lhs = lhs as? T, let rhs = rhs as? T else { return false }
            return type.valuesAreEqual(lhs, rhs)
        }
        misfit = { value in
            guard let value = value as? T else { return "it is not a \(T.self)" }
            return type.misfit(value)
        }
        absentValue = type.absentValue.map { $0 as any Sendable }
    }
}
