import Foundation

/// The one JSON text of a route item's `data`, so that equal data has equal bytes and a route written out and read
/// back equals itself (`RouteData` compares its text).
///
/// All operations on `_RouteDataJSON` are thread-safe.
///
/// Keys are sorted, and a negative zero is written as `0`: JSON has one zero, but Foundation writes `-0e30` back as
/// `-0` and reads `-0` as the integer `0`, so without this a route's data changed on every round trip (found by the
/// route fuzzer).
enum _RouteDataJSON {
    /// The canonical text of `object`, or `nil` when Foundation cannot write it.
    static func encode(_ object: [String: Any]) -> Data? {
        guard let canonical = canonical(object) as? [String: Any] else { return nil }
        return try? JSONSerialization.data(withJSONObject: canonical, options: [.sortedKeys])
    }

    private static func canonical(_ value: Any) -> Any {
        switch value {
        case let object as [String: Any]: object.mapValues(canonical)
        case let array as [Any]: array.map(canonical)
        // Only a double can be a negative zero (a Bool or an integer reads as +0 here).
        case let number as Double where number == 0 && number.sign == .minus: 0
        default: value
        }
    }
}
