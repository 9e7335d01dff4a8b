import Foundation
import MainlineLoop
import MainlineTesting

/// What observers saw, in order.
@MainActor
final class Seen<T> {
    private(set) var values: [T] = []
    func add(_ value: T) { values.append(value) }
}
