import Foundation

/// A flag set once, from any thread.
///
/// All operations on `Flag` are thread-safe (protected by `lock`).
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    /// Protected by `lock`.
    private var isSet = false

    /// Sets it.
    func set() { lock.withLock { isSet = true } }

    /// Whether it is set.
    var value: Bool { lock.withLock { isSet } }
}
