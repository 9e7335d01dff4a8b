/// What happened on a loop, in order: the suites record entries from callbacks and compare the list.
@MainActor
final class Log {
    private(set) var entries: [String] = []

    func add(_ entry: String) { entries.append(entry) }
}
