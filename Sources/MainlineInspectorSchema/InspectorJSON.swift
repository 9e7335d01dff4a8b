#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// The one way the inspector's documents become lines and lines documents, for the inspector and
/// `mainline-console` alike: Foundation's `JSONEncoder` and `JSONDecoder`, keys sorted (so a document reads the same
/// every time), slashes unescaped (sites are paths), one line per document.
///
/// All operations on `InspectorJSON` are thread-safe: each call makes its own coder.
package enum InspectorJSON {
    /// The version of the documents' schema; it changes only when a field changes meaning or goes away.
    package static let schema = 1

    /// `value` as one line of JSON, without a line break.
    ///
    /// - Throws: `EncodingError` for a number JSON cannot hold (infinity, NaN).
    package static func line(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// The document of type `type` in `bytes` (one line of JSON).
    ///
    /// - Throws: `DecodingError` when the bytes are not JSON, or not an object where the type has one.
    package static func decode<Document: Decodable>(
        _ type: Document.Type,
        from bytes: some Sequence<UInt8>
    ) throws
        -> Document
    {
        try JSONDecoder().decode(type, from: Data(bytes))
    }

    /// A short sentence saying why `error` (thrown by ``decode(_:from:)``) could not read a line: what was wrong and
    /// where, without the coder's internal coding path.
    package static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            Self.underlying(context) ?? context.debugDescription
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            context.debugDescription
        case DecodingError.keyNotFound(let key, _):
            "no \"\(key.stringValue)\" key"
        default:
            "\(error)"
        }
    }

    private static func underlying(_ context: DecodingError.Context) -> String? {
        guard let underlying = context.underlyingError else { return nil }
        return "\(underlying)"
    }
}
