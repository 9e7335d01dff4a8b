import MainlineBindings
import MainlineTesting
import Observation
import Testing

@MainActor @Observable
final class Inbox {
    var unread = 0
}

@MainActor
final class BadgeViewModel {
    var text = ""
}

/// The README's tour of bindings and data sources, as tests: the snippets there are copied from this file.
@MainActor
@Suite("README: bindings and data sources")
struct BindingsReadmeExampleTests {
    @Test func aBindingRunsAtBindTimeThenOncePerIteration() {
        let loop = TestLoop()
        let inbox = Inbox()
        let badge = BadgeViewModel()
        let binder = KeyPathBinder(loop: loop)
        binder.bind(inbox, \.unread, to: badge) { badge, unread in badge.text = "\(unread) unread" }
        #expect(badge.text == "0 unread")  // at bind time
        loop.post {
            inbox.unread += 1
            inbox.unread += 1
        }
        loop.runIteration()
        #expect(badge.text == "2 unread")  // two changes, one update, in settle
    }

    @Test func aHostReplaysOneChangeSetPerIteration() {
        let loop = TestLoop()
        let tasks = ArrayModel(["write", "review"])
        let list = MutableArrayDataSource(model: tasks, loop: loop) { task, _ in "[ ] \(task)" }
        let root = MultiRowDataSource(children: [ArrayDataSource(["TODAY"], loop: loop), list], loop: loop)

        var rows = root.snapshot()  // the host's copy
        var received: [ChangeSet] = []
        let observation = root.observeChanges { changes in
            received.append(changes)
            root.replay(changes, on: &rows)
        }
        loop.post {
            tasks.append("ship")
            tasks.move(from: 0, to: 2)
        }
        loop.runIteration()
        #expect(received.count == 1)  // two mutations, one change set, offsets applied
        #expect(
            received[0].history == [
                .rowInserted(RowPath(section: 0, row: 3)),
                .rowMoved(from: RowPath(section: 0, row: 1), to: RowPath(section: 0, row: 3)),
            ]
        )
        #expect(rows == [["TODAY", "[ ] review", "[ ] ship", "[ ] write"]])
        observation.dispose()
    }
}
