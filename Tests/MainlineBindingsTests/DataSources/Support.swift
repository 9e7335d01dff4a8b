import MainlineBindings
import MainlineLoop
import MainlineObservables

/// A host that mirrors a source's rows and replays every change set the source delivers.
@MainActor
final class MirrorHost<Item> {
    let source: DataSource<Item>
    private(set) var rows: [[Item]]
    private(set) var delivered: [ChangeSet] = []
    private(set) var replayFailures = 0
    private var observation: Disposable?

    init(_ source: DataSource<Item>) {
        self.source = source
        rows = source.snapshot()
        observation = source.observeChanges { [unowned self] changes in
            delivered.append(changes)
            if !source.replay(changes, on: &rows) { replayFailures += 1 }
        }
    }

    /// Every change delivered so far, in one history.
    var history: [SingleChange] { delivered.flatMap(\.history) }
}

/// `count` sections of one row each, named `name.s`.
@MainActor
func sections(_ name: String, _ count: Int, loop: any Loop) -> ArrayDataSource<String> {
    ArrayDataSource(sections: (0..<count).map { ["\(name).\($0)"] }, loop: loop)
}

/// One section of `count` rows named `name.r`.
@MainActor
func rows(_ name: String, _ count: Int, loop: any Loop) -> ArrayDataSource<String> {
    ArrayDataSource((0..<count).map { "\(name).\($0)" }, loop: loop)
}
