import MainlineBindings
import MainlineObservables
import MainlineTesting
import Testing

@MainActor
final class CellViewModel {
    let title: String
    init(_ title: String) { self.title = title }
}

/// `MutableArrayDataSource`: rows of an `ArrayModel` as cached cell view models kept in step with each change.
@MainActor
@Suite("MutableArrayDataSource")
struct MutableArrayDataSourceTests {
    @Test func cellViewModelsAreMadeOnceAndMoveWithTheirRows() {
        let loop = TestLoop()
        let model = ArrayModel(["a", "b", "c"])
        var made: [String] = []
        let source = MutableArrayDataSource(model: model, loop: loop) { element, _ in
            made.append(element)
            return CellViewModel(element)
        }
        let a = source.item(at: path(0, 0))
        #expect(source.item(at: path(0, 0)) === a, "cached")
        model.move(from: 0, to: 2)
        #expect(source.item(at: path(0, 2)) === a, "moved with its row")
        model.replace(at: 2, with: "A")
        #expect(source.item(at: path(0, 2)).title == "A", "a changed row gets a new view model")
        model.insert("z", at: 0)
        #expect(source.cache.paths == [path(0, 3)], "the insert pushed the cached row down")
        #expect(made == ["a", "A"])
        #expect(source.element(at: path(0, 0)) == "z")
    }

    @Test func observersGetOnlyTheChangesMadeAfterTheyStarted() {
        let loop = TestLoop()
        let model = ArrayModel(["a"])
        let source = MutableArrayDataSource(model: model, loop: loop) { element, _ in element }
        let early = MirrorHost(source)
        model.append("b")
        let late = MirrorHost(source)  // its snapshot already shows "b"
        model.append("c")
        loop.runUntilIdle()
        #expect(early.history == [.rowInserted(path(0, 1)), .rowInserted(path(0, 2))])
        #expect(late.history == [.rowInserted(path(0, 2))])
        #expect(early.rows == [["a", "b", "c"]])
        #expect(late.rows == [["a", "b", "c"]])
    }

    @Test func aDisposedObservationIsNotCalled() {
        let loop = TestLoop()
        let model = ArrayModel(["a"])
        let source = MutableArrayDataSource(model: model, loop: loop) { element, _ in element }
        var calls = 0
        let observation = source.observeChanges { _ in calls += 1 }
        model.append("b")
        observation.dispose()
        loop.runUntilIdle()
        #expect(calls == 0)
    }

    /// A source observed by a block that captures a host object nothing else holds, and whether the host lives.
    private func observationHoldingAHost(
        _ loop: TestLoop
    ) -> (MutableArrayDataSource<String, String>, Disposable, @MainActor @Sendable () -> Bool) {
        @MainActor final class Host {}
        let source = MutableArrayDataSource(model: ArrayModel(["a"]), loop: loop) { element, _ in element }
        var host: Host? = Host()
        weak let weakHost = host
        let observation = source.observeChanges { [host] _ in _ = host }
        host = nil
        return (source, observation, { weakHost != nil })
    }

    @Test func aDisposedObservationLetsGoOfItsObserverWithoutWaitingForAChange() {
        let loop = TestLoop()
        let (source, observation, hostLives) = observationHoldingAHost(loop)
        #expect(hostLives(), "the observation holds what its block captured")
        observation.dispose()
        loop.runUntilIdle()
        #expect(!hostLives(), "disposed: released on the loop, though nothing changed")
        #expect(!source.hasPendingChanges)
    }

    @Test func anObservationDisposedInsideTheLoopLetsGoOfItsObserverAtOnce() {
        @MainActor final class Flag { var value = false }
        let loop = TestLoop()
        let (source, observation, hostLives) = observationHoldingAHost(loop)
        let releasedInTheSameJob = Flag()
        _ = loop.post {
            observation.dispose()
            releasedInTheSameJob.value = !hostLives()
        }
        loop.runIteration()
        #expect(releasedInTheSameJob.value, "no job posted for later: the list lets go of it inside the disposing job")
        withExtendedLifetime(source) {}  // the source, and so its observer list, outlives the check
    }

    @Test func anIndexOutsideTheModelIsReportedAndChangesNothing() {
        let loop = TestLoop()
        let model = ArrayModel(["a"])
        let source = MutableArrayDataSource(model: model, loop: loop) { element, _ in element }
        let host = MirrorHost(source)
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            model.insert("x", at: 3)
            #expect(model.remove(at: 1) == nil)
            model.move(from: 0, to: 1)
            model.replace(at: -1, with: "y")
        }
        #expect(diagnostics.kinds == Array(repeating: .arrayModelIndexOutOfRange, count: 4))
        loop.runUntilIdle()
        #expect(host.delivered.isEmpty)
        #expect(model.elements == ["a"])
    }
}
