import MainlineLoop
import MainlineObservables
import MainlineTesting
import MainlineViewModels
import Testing

/// A view model that logs its lifecycle and, when resumed, runs work until it is cancelled.
@MainActor
final class LoggingViewModel: BaseViewModel {
    var log: [String] = []
    var resumedWork: Task<Void, Never>?
    var resumedScopes: [ViewModelScope] = []

    override func onResume(_ scope: ViewModelScope) {
        log.append("resume")
        resumedScopes.append(scope)
        resumedWork = scope.launch { [weak self] in
            await untilCancelled()
            self?.log.append("resumed work cancelled")
        }
    }

    override func onPause() {
        log.append("pause (work cancelled: \(resumedWork?.isCancelled ?? true))")
    }

    override func onCleared() {
        log.append("cleared")
    }
}

/// Suspends until the current task is cancelled, without timers or sleeping.
func untilCancelled() async {
    let (stream, _) = AsyncStream.makeStream(of: Never.self)
    for await _ in stream {}
}

@MainActor
@Suite("BaseViewModel lifecycle")
struct BaseViewModelTests {
    @Test func pauseCallsOnPauseThenCancelsTheResumedWork() async {
        let viewModel = LoggingViewModel(loop: TestLoop())
        #expect(viewModel.state == .initialized)
        viewModel.didResume()
        #expect(viewModel.state == .resumed)
        viewModel.didPause()
        #expect(viewModel.state == .paused)
        await viewModel.resumedWork?.value
        #expect(viewModel.log == ["resume", "pause (work cancelled: false)", "resumed work cancelled"])
        #expect(viewModel.resumedScopes.first?.hasEnded == true)
        #expect(viewModel.resumedScope == nil)
    }

    @Test func resumingAfterAPauseGetsAFreshScopeAndResumingTwiceIsANoOp() {
        let viewModel = LoggingViewModel(loop: TestLoop())
        viewModel.didResume()
        viewModel.didResume()
        viewModel.didPause()
        viewModel.didPause()
        viewModel.didResume()
        #expect(viewModel.log.filter { $0 == "resume" }.count == 2)
        #expect(viewModel.resumedScopes.count == 2)
        #expect(viewModel.resumedScopes[0] !== viewModel.resumedScopes[1])
        #expect(viewModel.resumedScopes[0].hasEnded && !viewModel.resumedScopes[1].hasEnded)
        viewModel.clear()
    }

    @Test func clearFromResumedPausesCancelsEverythingAndCallsOnClearedOnce() async {
        let viewModel = LoggingViewModel(loop: TestLoop())
        var lifetimeCancelled = false
        let lifetime = viewModel.launch {
            await untilCancelled()
            lifetimeCancelled = true
        }
        viewModel.didResume()
        viewModel.clear()
        viewModel.clear()
        await lifetime?.value
        await viewModel.resumedWork?.value
        #expect(lifetimeCancelled)
        #expect(viewModel.state == .cleared)
        #expect(viewModel.log == ["resume", "pause (work cancelled: false)", "cleared", "resumed work cancelled"])
        #expect(viewModel.log.filter { $0 == "cleared" }.count == 1)
        #expect(viewModel.scope.hasEnded)
    }

    @Test func launchingAfterClearIsReportedAndStartsNothing() {
        let viewModel = LoggingViewModel(loop: TestLoop())
        viewModel.clear()
        let diagnostics = DiagnosticsRecorder()
        var ran = false
        let task = diagnostics.record { viewModel.launch { ran = true } }
        #expect(task == nil)
        #expect(!ran)
        #expect(diagnostics.kinds == [.launchAfterScopeEnded])
    }

    @Test func transitionsAfterClearAreReportedAndIgnored() {
        let viewModel = LoggingViewModel(loop: TestLoop())
        viewModel.clear()
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            viewModel.didResume()
            viewModel.didPause()
        }
        #expect(diagnostics.kinds == [.transitionAfterClear, .transitionAfterClear])
        #expect(viewModel.state == .cleared)
        #expect(viewModel.log == ["cleared"])
    }

    @Test func transitionsPostedFromAnotherThreadAreAppliedOnTheLoopInOrder() async {
        let loop = TestLoop()
        let viewModel = LoggingViewModel(loop: loop)
        await Task.detached {
            viewModel.post(.resume)
            viewModel.post(.pause)
            viewModel.post(.resume)
        }.value
        #expect(viewModel.state == .initialized, "applied on the loop, not on the posting thread")
        await loop.runUntilIdle()
        #expect(viewModel.state == .resumed)
        #expect(viewModel.log.prefix(2) == ["resume", "pause (work cancelled: false)"])
        viewModel.clear()
    }
}
