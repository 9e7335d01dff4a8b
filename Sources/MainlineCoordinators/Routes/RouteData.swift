import Foundation

/// The `data` of one route item: a JSON object, handed to the coordinator the item builds.
///
/// `RouteData` is a value type; all operations on it are thread-safe.
public struct RouteData: Sendable, Hashable {
    /// The JSON text of the `data` object (`{}` when the item had none).
    public let json: Data

    /// Creates route data from JSON text.
    public init(json: Data) {
        self.json = json
    }

    /// Decodes the data as `T`.
    ///
    /// - Parameter type: The type to decode.
    /// - Returns: The value.
    /// - Throws: The decoder's error when the data does not fit `T`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: json)
    }
}
