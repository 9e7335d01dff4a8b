import MainlineLoop
import MainlineObservables
import MainlineTesting
import MainlineViewModels
import Testing

/// The README's view model: a subject fed from a worker thread, a tick, and work in the resumed scope.
@MainActor
final class DownloadViewModel: BaseViewModel {
    let progress: InitializedSubject<Int>
    let elapsed: InitializedSubject<String>
    private(set) var finished = false

    override init(loop: any Loop = MainLoop.main) {
        progress = subjectOf(0, loop: loop)
        elapsed = subjectOf("0 s", loop: loop)
        super.init(loop: loop)
    }

    override func onResume(_ scope: ViewModelScope) {
        scope.tick(every: .seconds(1)) { [weak self] tick in
            self?.elapsed.value = "\(tick.index) s"
        }
        scope.launch { [weak self, progress] in
            for await percent in progress.values where percent == 100 {
                self?.finished = true
            }
        }
    }
}

/// The README's tour of observables and view models, as tests: the snippets there are copied from this file.
@MainActor
@Suite("README: observables and view models")
struct ViewModelReadmeExampleTests {
    @Test func aViewModelWithATickAndASubjectFedFromAWorkerThread() async {
        let loop = TestLoop()
        let viewModel = DownloadViewModel(loop: loop)
        viewModel.didResume()

        // A worker thread reports progress; posting never blocks it.
        await Task.detached {
            for percent in [25, 50, 100] { viewModel.progress.post(percent) }
        }.value
        await loop.advance(by: .seconds(2))  // and waits for the resumed scope's task to see each value
        #expect(viewModel.progress.value == 100)
        #expect(viewModel.elapsed.value == "2 s")
        #expect(viewModel.finished)

        viewModel.didPause()  // cancels the resumed scope: its task and its tick
        await loop.advance(by: .seconds(5))
        #expect(viewModel.elapsed.value == "2 s")
        viewModel.clear()
    }
}
