import MainlineEvents

/// A task on the main actor that iterates an async sequence with `for await`, recording what it gets and when it
/// finishes, for tests that step a `TestLoop` with `run(until:)`.
@MainActor
final class Consumer<Element: Sendable> {
    /// The elements received, in order.
    private(set) var elements: [Element] = []
    /// Set once the task began iterating (it is then waiting in `next`, or handling an element).
    private(set) var started = false
    /// Set once the `for await` loop ended.
    private(set) var finished = false
    /// The task iterating.
    private(set) var task: Task<Void, Never>?

    /// Starts iterating `sequence`; stops after `limit` elements, so a sequence that never suspends (a bug) fails a
    /// test instead of hanging it.
    init<S: AsyncSequence & Sendable>(_ sequence: S, limit: Int = 1_000)
    where S.Element == Element, S.Failure == Never {
        task = Task { @MainActor in
            self.started = true
            for await element in sequence {
                self.elements.append(element)
                if self.elements.count == limit { break }
            }
            self.finished = true
        }
    }

    var count: Int { elements.count }
}
