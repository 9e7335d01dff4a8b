import MainlineLoop
import MainlineTesting
import MainlineViewModels
import Testing

@MainActor
final class TickingViewModel: BaseViewModel {
    var ticks: [Tick] = []

    override func onResume(_ scope: ViewModelScope) {
        scope.tick(every: .milliseconds(100)) { [weak self] tick in self?.ticks.append(tick) }
    }
}

/// Lifecycle ticks, in virtual time.
@MainActor
@Suite("Lifecycle ticks")
struct TickTests {
    func ms(_ tick: Tick) -> Int64 { tick.now.nanoseconds / 1_000_000 }

    @Test func ticksFireAtExactVirtualTimesWhileResumed() {
        let loop = TestLoop()
        let viewModel = TickingViewModel(loop: loop)
        viewModel.didResume()
        loop.advance(by: .milliseconds(350))
        #expect(viewModel.ticks.map(ms) == [100, 200, 300])
        #expect(viewModel.ticks.map(\.index) == [1, 2, 3])
        viewModel.clear()
    }

    @Test func ticksStopOnPauseAndStartAfreshOnResume() {
        let loop = TestLoop()
        let viewModel = TickingViewModel(loop: loop)
        viewModel.didResume()
        loop.advance(by: .milliseconds(250))
        viewModel.didPause()
        loop.advance(by: .milliseconds(500))
        #expect(viewModel.ticks.map(ms) == [100, 200])
        #expect(loop.scheduledTimerCount == 0)
        viewModel.didResume()
        loop.advance(by: .milliseconds(100))
        #expect(viewModel.ticks.map(ms) == [100, 200, 850])
        #expect(viewModel.ticks.last?.index == 1, "a new resumed span counts afresh")
        viewModel.clear()
        loop.advance(by: .seconds(1))
        #expect(viewModel.ticks.count == 3, "and stop on clear")
    }

    @Test func aLateTickRunsOnceAndTheMissedOnesAreSkippedAndCounted() {
        let loop = TestLoop()
        let viewModel = TickingViewModel(loop: loop)
        viewModel.didResume()
        loop.advance(by: .milliseconds(100))
        loop.schedule(after: .milliseconds(50)) { loop.simulateBusy(for: .milliseconds(320)) }
        loop.advance(by: .milliseconds(500))
        // Busy from 150 to 470: the ticks due at 200, 300 and 400 collapse into one at 470; then 500, 600.
        #expect(viewModel.ticks.map(ms) == [100, 470, 500, 600])
        #expect(viewModel.ticks.map(\.skipped) == [0, 2, 0, 0])
        #expect(viewModel.ticks.last?.totalSkipped == 2)
        viewModel.clear()
    }
}
