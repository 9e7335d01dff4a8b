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

    /// `Tick`'s worked example: a 1-second tick on a loop busy from 1 s to 4.5 s. Three deadlines pass while it is
    /// busy (2 s, 3 s, 4 s), yet `skipped` is 2: the late tick stands for the first of them.
    @Test func aLateTickStandsForTheFirstMissedTickSoSkippedCountsOnlyTheOthers() {
        let loop = TestLoop()
        let viewModel = SecondTickingViewModel(loop: loop)
        viewModel.didResume()
        loop.advance(by: .seconds(1))
        loop.simulateBusy(for: .milliseconds(3_500))
        loop.advance(by: .milliseconds(500))
        #expect(viewModel.ticks.map(ms) == [1_000, 4_500, 5_000])
        #expect(viewModel.ticks.map(\.index) == [1, 2, 3])
        #expect(viewModel.ticks.map(\.skipped) == [0, 2, 0])
        #expect(viewModel.ticks.map(\.totalSkipped) == [0, 2, 2])
        // `index + totalSkipped`: the whole intervals since the request, 4 at 4.5 s and 5 at 5 s.
        #expect(viewModel.ticks.map { $0.index + $0.totalSkipped } == [1, 4, 5])
        viewModel.clear()
        #expect(!loop.hasPendingWork)
    }
}

@MainActor
final class SecondTickingViewModel: BaseViewModel {
    var ticks: [Tick] = []

    override func onResume(_ scope: ViewModelScope) {
        scope.tick(every: .seconds(1)) { [weak self] tick in self?.ticks.append(tick) }
    }
}
