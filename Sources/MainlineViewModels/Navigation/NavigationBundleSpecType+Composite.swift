import Foundation
import MainlineLoop

// The spec types built from others: arrays, optionals, nested bundles, and any `Codable` type.

extension NavigationBundleSpecType {
    /// A row that holds an array of values of `element`'s type: `.array(.int32)` holds `[Int32]`,
    /// `.array(.optional(.string))` holds `[String?]`, `.array(.bundle(stop))` holds `[NavigationBundle]`.
    ///
    /// JSON: an array. An error in an element names it by index (`ids[2]`).
    ///
    /// - Parameter element: The type of each element.
    /// - Returns: The spec type of `[Element]`.
    public static func array<Element>(_ element: NavigationBundleSpecType<Element>) -> Self where T == [Element] {
        let kind = _NavigationBundleKind.array(element.kind)
        return Self(
            kind: kind,
            encode: { values, encoder, path in
                var container = encoder.unkeyedContainer()
                for (index, value) in values.enumerated() {
                    try container.encode(_BundleJSON.Writer { try element.encodeValue(value, $0, path.element(index)) })
                }
            },
            decode: { (decoder, path) throws(NavigationBundleDecodingError) in
                guard var container = try? decoder.unkeyedContainer() else {
                    throw .invalidValue(
                        row: "\(path)",
                        expected: "\(kind)",
                        reason: "found \(_BundleJSON.found(in: decoder))"
                    )
                }
                var values: [Element] = []
                values.reserveCapacity(container.count ?? 0)
                while !container.isAtEnd {
                    let elementPath = path.element(container.currentIndex)
                    guard let elementDecoder = try? container.superDecoder() else {
                        throw .invalidValue(row: "\(elementPath)", expected: "\(element.kind)", reason: "unreadable")
                    }
                    values.append(try element.decodeValue(elementDecoder, elementPath))
                }
                return values
            },
            equal: { lhs, rhs in
                lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { element.valuesAreEqual($0, $1) }
            },
            misfit: { values in
                for (index, value) in values.enumerated() {
                    if let misfit = element.misfit(value) { return "element \(index): \(misfit)" }
                }
                return nil
            }
        )
    }

    /// A row that holds a value of `wrapped`'s type or `nil`: `.optional(.date)` holds `Date?`.
    ///
    /// An optional row may be left out: `toBundle` may return `nil` for it, and a JSON payload may omit its key.
    /// Both mean `nil`.
    ///
    /// JSON: `null` for `nil`, otherwise what `wrapped` writes.
    ///
    /// - Parameter wrapped: The type of the value when there is one. Must not itself be optional: JSON cannot tell
    ///   `.some(nil)` from `nil`, so that is reported as misuse
    ///   (`DiagnosticKind.navigationBundleNestedOptional`), and such a row decodes `.some(nil)` as `nil`.
    /// - Returns: The spec type of `Wrapped?`.
    public static func optional<Wrapped>(_ wrapped: NavigationBundleSpecType<Wrapped>) -> Self where T == Wrapped? {
        if wrapped.kind.isOptional {
            Diagnostics.report(
                .navigationBundleNestedOptional,
                "NavigationBundleSpecType.optional(_:) was given \(wrapped), which is already optional; JSON cannot "
                    + "tell .some(nil) from nil, so it would decode as nil. Use .optional of the non-optional type."
            )
        }
        let kind = _NavigationBundleKind.optional(wrapped.kind)
        return Self(
            kind: kind,
            encode: { value, encoder, path in
                if let value {
                    try wrapped.encodeValue(value, encoder, path)
                } else {
                    var container = encoder.singleValueContainer()
                    try container.encodeNil()
                }
            },
            decode: { (decoder, path) throws(NavigationBundleDecodingError) in
                if let container = try? decoder.singleValueContainer(), container.decodeNil() { return nil }
                do throws(NavigationBundleDecodingError) {
                    return try wrapped.decodeValue(decoder, path)
                } catch {
                    // When the value itself is wrong (not something inside it), say that null was allowed too.
                    guard case .invalidValue(let row, _, let reason) = error, row == "\(path)" else { throw error }
                    throw .invalidValue(row: row, expected: "\(kind)", reason: reason)
                }
            },
            equal: { lhs, rhs in
                switch (lhs, rhs) {
                case (nil, nil): true
                case (let lhs?, let rhs?): wrapped.valuesAreEqual(lhs, rhs)
                default: false
                }
            },
            misfit: { value in value.flatMap(wrapped.misfit) },
            absentValue: .some(nil)
        )
    }
}

extension NavigationBundleSpecType where T == NavigationBundle {
    /// A row that holds a nested bundle of `spec`.
    ///
    /// The nested bundle must be one of `spec`: giving a row a bundle of another spec is reported as misuse
    /// (`DiagnosticKind.navigationBundleValueMismatch`).
    ///
    /// JSON: an object, one key per row of `spec`. An error inside it names the path (`address.street`).
    ///
    /// - Parameter spec: The spec of the nested bundle.
    /// - Returns: The spec type of a bundle of `spec`.
    public static func bundle(_ spec: NavigationBundleSpec) -> Self {
        Self(
            kind: .bundle(spec),
            encode: { bundle, encoder, path in try bundle.encode(to: encoder, at: path) },
            decode: { (decoder, path) throws(NavigationBundleDecodingError) in
                try NavigationBundle(from: decoder, spec: spec, at: path)
            },
            equal: { $0 == $1 },
            misfit: { bundle in bundle.spec == spec ? nil : "it is a bundle of \(bundle.spec), not of \(spec)" }
        )
    }
}

extension NavigationBundleSpecType where T: Codable {
    /// A row that holds a value of any `Codable` type, as JSON (upstream Kaluga's `SerializedType`).
    ///
    /// Two `codable` spec types are equal when they name the same Swift type. Values compare with `==` when the
    /// type is `Equatable`, otherwise by their JSON.
    ///
    /// JSON: what the type's `Codable` conformance writes, with the settings of the encoder in use (for
    /// ``NavigationBundle/jsonData()``: dates as seconds since 1970, non-finite numbers as `"NaN"`,
    /// `"Infinity"`, `"-Infinity"`). A value that fails to decode names the row and the decoder's reason.
    ///
    /// - Parameter type: The type; it may be left out where the row's type says it: `.codable()`.
    /// - Returns: The spec type of `T`.
    public static func codable(_ type: T.Type = T.self) -> Self {
        let kind = _NavigationBundleKind.codable(ObjectIdentifier(T.self), name: String(describing: T.self))
        return Self(
            kind: kind,
            encode: { value, encoder, path in
                do {
                    try value.encode(to: encoder)
                } catch {
                    throw NavigationBundleEncodingError(
                        row: "\(path)",
                        type: "\(kind)",
                        reason: _BundleJSON.reason(error)
                    )
                }
            },
            decode: { (decoder, path) throws(NavigationBundleDecodingError) in
                do {
                    return try T(from: decoder)
                } catch {
                    throw .invalidValue(row: "\(path)", expected: "\(kind)", reason: _BundleJSON.reason(error))
                }
            },
            equal: { lhs, rhs in
                if let lhs = lhs as? any Equatable { return lhs.isEqual(toAny: rhs) }
                // Not `Equatable`: equal when they write the same JSON; a value that cannot be written equals nothing.
                guard let lhs = NavigationBundle.canonicalJSON(lhs), let rhs = NavigationBundle.canonicalJSON(rhs)
                else {
                    return false
                }
                return lhs == rhs
            }
        )
    }
}

extension Equatable {
    /// Whether `other` is a `Self` equal to this value: `==` for a value whose type is only known to be `Equatable`.
    fileprivate func isEqual(toAny other: Any) -> Bool {
        (other as? Self) == self
    }
}
