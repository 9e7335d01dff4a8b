import Foundation
import Testing

/// What a test's tasks, threads or known-issue matchers recorded, in order, for the test to read afterwards.
/// Thread-safe.
final class Recorded<Element: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `recorded` is protected by `lock`.
    private let lock = NSLock()
    private var recorded: [Element] = []

    func append(_ element: Element) {
        lock.lock()
        defer { lock.unlock() }
        recorded.append(element)
    }

    /// Everything recorded so far, in order.
    var values: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}

extension Recorded where Element == String {
    /// Records `issue`, described.
    func add(_ issue: Issue) { append(String(describing: issue)) }

    /// The first issue recorded, described; empty when none was.
    var first: String { values.first ?? "" }
}
