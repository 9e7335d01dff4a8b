import Foundation
import MainlineInspectorSchema
import MainlineLoop
import MainlineTesting
import MainlineViewModels
import Testing

/// What view models show an inspector: their type, lifecycle state and id, from a copy each transition updates — so it
/// reads while the main actor is busy — once an inspector has started, and nothing in a process that never started one.
@MainActor
@Suite("BaseViewModel under an inspector")
struct BaseViewModelInspectionTests {
    final class ClockViewModel: BaseViewModel {}

    /// The shared registry's description of the view model with `id`.
    nonisolated static func described(id: Int?) -> ViewModelSummary? {
        _InspectionRegistry.shared.describe(.viewModels, as: ViewModelSummary.self).first { $0.id == id }
    }

    /// The id of the view model described last (the one just made).
    static func newestID() -> Int? {
        _InspectionRegistry.shared.describe(.viewModels, as: ViewModelSummary.self).last?.id
    }

    @Test func aViewModelShowsItsTypeAndEachLifecycleState() {
        _InspectionRegistry.shared.activate()
        let viewModel = ClockViewModel(loop: TestLoop())
        let id = Self.newestID()
        #expect(Self.described(id: id)?.type == "ClockViewModel")
        #expect(Self.described(id: id)?.state == "initialized")

        viewModel.didResume()
        #expect(Self.described(id: id)?.state == "resumed")
        viewModel.didPause()
        #expect(Self.described(id: id)?.state == "paused")
        viewModel.clear()
        #expect(Self.described(id: id) == ViewModelSummary(type: "ClockViewModel", state: "cleared", id: id!))
    }

    @Test func theStateReadsOnAnotherThreadWhileTheMainActorIsBlocked() {
        _InspectionRegistry.shared.activate()
        let viewModel = ClockViewModel(loop: TestLoop())
        let id = Self.newestID()
        viewModel.didResume()

        // The main actor waits here, as a stalled loop would; the read happens on another thread meanwhile.
        let read = DispatchSemaphore(value: 0)
        let state = _Locked<String?>(nil)
        Thread.detachNewThread {
            state.withLock { $0 = Self.described(id: id)?.state }
            read.signal()
        }
        #expect(read.wait(timeout: .now() + 60) == .success, "the inspector's read waited for the main actor")
        #expect(state.withLock { $0 } == "resumed")
        withExtendedLifetime(viewModel) {}
    }

    @Test func eachViewModelHasItsOwnIdAndGoesWhenItDoes() {
        _InspectionRegistry.shared.activate()
        var first: ClockViewModel? = ClockViewModel(loop: TestLoop())
        let firstID = Self.newestID()
        let second = ClockViewModel(loop: TestLoop())
        let secondID = Self.newestID()
        #expect(firstID != secondID)
        #expect(Self.described(id: firstID) != nil)

        first = nil

        #expect(first == nil)
        #expect(Self.described(id: firstID) == nil)
        #expect(Self.described(id: secondID) != nil)
        withExtendedLifetime(second) {}
    }

    @Test func inAProcessThatNeverStartedAnInspectorViewModelsRegisterNothing() async {
        await #expect(processExitsWith: .success) {
            await MainActor.run {
                let viewModel = BaseViewModel(loop: TestLoop())
                viewModel.didResume()
                precondition(!_InspectionRegistry.shared.isActive)
                precondition(_InspectionRegistry.shared.entryCount(.viewModels) == 0, "a view model registered")
            }
        }
    }
}
