import Foundation

/// Liberal reading of what `JSONSerialization` gives back: a field that is missing, `null` or of another type reads as
/// `nil` (or empty), never as an error, so that a document of a newer inspector, or a loop that describes less, still
/// shows what it has.
extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) -> String? {
        self[key] as? String
    }

    func number(_ key: String) -> Double? {
        guard let number = self[key] as? NSNumber, !isBoolean(number) else { return nil }
        return number.doubleValue
    }

    func integer(_ key: String) -> Int? {
        number(key).flatMap { $0.isFinite && abs($0) < 9e18 ? Int($0) : nil }
    }

    func bool(_ key: String) -> Bool? {
        guard let number = self[key] as? NSNumber, isBoolean(number) else { return nil }
        return number.boolValue
    }

    func object(_ key: String) -> [String: Any]? {
        self[key] as? [String: Any]
    }

    func objects(_ key: String) -> [[String: Any]] {
        (self[key] as? [Any])?.compactMap { $0 as? [String: Any] } ?? []
    }

    func strings(_ key: String) -> [String] {
        (self[key] as? [Any])?.compactMap { $0 as? String } ?? []
    }
}

/// The class `JSONSerialization` reads `true` and `false` as: an `NSNumber` too, which `as? Bool` and `as? Double`
/// both accept, so only the class tells a boolean from `1` and `0`.
private let booleanClass = type(of: NSNumber(value: true))

private func isBoolean(_ number: NSNumber) -> Bool {
    type(of: number) == booleanClass
}
