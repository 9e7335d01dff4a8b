import Foundation

// Bundles as JSON: an object with one key per row of the spec (each row type documents its value's form). Routes
// carry bundles this way (spec/coordinators-and-bindings.md, "Route deep links": an item's `data`).

extension NavigationBundle: Encodable, DecodableWithConfiguration {
    /// Writes the bundle as JSON.
    ///
    /// ```swift
    /// let data = try bundle.jsonData()  // {"coupon":null,"orderID":1042}
    /// ```
    ///
    /// Keys are sorted, so equal bundles give equal bytes. An optional row without a value is written as `null`.
    /// A ``NavigationBundleSpecType/codable(_:)`` value is written with dates as seconds since 1970 and non-finite
    /// numbers as `"NaN"`, `"Infinity"` and `"-Infinity"`, as the row types of the bundle itself are.
    ///
    /// Callable from any thread.
    ///
    /// - Returns: UTF-8 JSON.
    /// - Throws: ``NavigationBundleEncodingError`` naming the row when a `Codable` value fails to encode.
    public func jsonData() throws(NavigationBundleEncodingError) -> Data {
        do {
            return try Self.makeJSONEncoder().encode(self)
        } catch let error as NavigationBundleEncodingError {
            throw error
        } catch {
            throw NavigationBundleEncodingError(row: "", type: "NavigationBundle(\(spec.name))", reason: "\(error)")
        }
    }

    /// Reads a bundle of `spec` from JSON, such as the `data` of a route item.
    ///
    /// ```swift
    /// let bundle = try NavigationBundle(json: Data(#"{"orderID": 1042}"#.utf8), spec: Checkout.spec)
    /// ```
    ///
    /// Every row of `spec` must have its key, except optional rows, for which a missing key means `nil`. Keys the
    /// spec does not list are ignored, so a newer sender can add rows. A `Codable` value is read with dates as
    /// seconds since 1970 (a finite number) and `"NaN"`, `"Infinity"` and `"-Infinity"` as numbers.
    ///
    /// Callable from any thread. Never traps on bad input, and builds the bundle only when every row decoded.
    ///
    /// - Parameters:
    ///   - json: UTF-8 JSON whose top level is an object.
    ///   - spec: The spec the payload must follow.
    /// - Throws: ``NavigationBundleDecodingError`` naming the row and what was expected, or
    ///   ``NavigationBundleDecodingError/malformedPayload(spec:reason:)`` when `json` is not a JSON object.
    public init(json: Data, spec: NavigationBundleSpec) throws(NavigationBundleDecodingError) {
        do {
            self = try Self.makeJSONDecoder().decode(NavigationBundle.self, from: json, configuration: spec)
        } catch let error as NavigationBundleDecodingError {
            throw error
        } catch {
            throw .malformedPayload(spec: spec.name, reason: _BundleJSON.reason(error))
        }
    }

    /// Writes the bundle into any encoder: an object with one key per row holding a value.
    ///
    /// The bundle's own rows are written the same way whatever the encoder's strategies; a
    /// ``NavigationBundleSpecType/codable(_:)`` value follows the encoder's strategies.
    ///
    /// - Parameter encoder: The encoder, such as the one writing a route that embeds this bundle.
    /// - Throws: ``NavigationBundleEncodingError`` naming the row when a `Codable` value fails to encode, or what
    ///   the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try encode(to: encoder, at: .root)
    }

    /// Reads a bundle of the spec `configuration` from any decoder, for a route's `Codable` type that embeds one:
    /// `try container.decode(NavigationBundle.self, forKey: .data, configuration: spec)`.
    ///
    /// - Parameters:
    ///   - decoder: The decoder, positioned at the bundle's object.
    ///   - configuration: The spec the payload must follow.
    /// - Throws: ``NavigationBundleDecodingError``, as ``init(json:spec:)`` does; paths start at the bundle.
    public init(from decoder: any Decoder, configuration: NavigationBundleSpec) throws {
        try self.init(from: decoder, spec: configuration, at: .root)
    }

    func encode(to encoder: any Encoder, at path: _BundleValuePath) throws {
        var container = encoder.container(keyedBy: _BundleJSON.Key.self)
        for row in spec.rows {
            // A row has no value only after misuse reported by `toBundle`; its key is left out.
            guard let value = values[row.key] else { continue }
            let rowPath = path.row(row.key)
            try container.encode(
                _BundleJSON.Writer { try value.codec.encode(value.value, $0, rowPath) },
                forKey: _BundleJSON.Key(row.key)
            )
        }
    }

    init(
        from decoder: any Decoder,
        spec: NavigationBundleSpec,
        at path: _BundleValuePath
    ) throws(NavigationBundleDecodingError) {
        let container: KeyedDecodingContainer<_BundleJSON.Key>
        do {
            container = try decoder.container(keyedBy: _BundleJSON.Key.self)
        } catch {
            let found = "found \(_BundleJSON.found(in: decoder))"
            if path.isRoot { throw .malformedPayload(spec: spec.name, reason: "expected a JSON object, \(found)") }
            throw .invalidValue(row: "\(path)", expected: "\(_NavigationBundleKind.bundle(spec))", reason: found)
        }
        // Built aside and assigned at the end: a failure leaves nothing behind.
        var values: [String: NavigationBundleValue] = [:]
        for row in spec.rows {
            let key = _BundleJSON.Key(row.key)
            let rowPath = path.row(row.key)
            guard container.contains(key) else {
                guard let absent = row.codec.absentValue else {
                    throw .missingRow(row: "\(rowPath)", expected: row.typeDescription)
                }
                values[row.key] = NavigationBundleValue(erased: absent, codec: row.codec)
                continue
            }
            let rowDecoder: any Decoder
            do {
                rowDecoder = try container.superDecoder(forKey: key)
            } catch {
                throw .invalidValue(row: "\(rowPath)", expected: row.typeDescription, reason: _BundleJSON.reason(error))
            }
            values[row.key] = NavigationBundleValue(erased: try row.codec.decode(rowDecoder, rowPath), codec: row.codec)
        }
        self.init(spec: spec, values: values)
    }

    /// The encoder of ``jsonData()``; its strategies apply to `Codable` values only.
    static func makeJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: _BundleJSON.infinity,
            negativeInfinity: _BundleJSON.negativeInfinity,
            nan: _BundleJSON.nan
        )
        return encoder
    }

    /// The decoder of ``init(json:spec:)``, matching ``makeJSONEncoder()``.
    static func makeJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        // Seconds since 1970, as `.secondsSince1970`, but finite: that strategy takes "NaN" through the float strategy.
        decoder.dateDecodingStrategy = .custom(_BundleJSON.decodeDate(from:))
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: _BundleJSON.infinity,
            negativeInfinity: _BundleJSON.negativeInfinity,
            nan: _BundleJSON.nan
        )
        return decoder
    }

    /// `value` as JSON with sorted keys, or `nil` if it fails to encode: how `Codable` values that are not
    /// `Equatable` are compared.
    static func canonicalJSON(_ value: some Encodable) -> Data? {
        try? makeJSONEncoder().encode(value)
    }
}
