import MainlineLoop
import MainlineTesting
import MainlineViewModels
import Testing

enum ShopNavigation: NavigationAction, Equatable {
    case details(orderID: Int)
    case back
    var bundle: NavigationBundle? { nil }
}

@MainActor
@Suite("NavigatingViewModel")
struct NavigatingViewModelTests {
    @Test func itSendsActionsToItsNavigatorAndReportsFailure() {
        let navigator = RecordingNavigator<ShopNavigation>()
        let viewModel = NavigatingViewModel(navigator: navigator, loop: TestLoop())
        #expect(viewModel.navigate(.details(orderID: 7)))
        navigator.failure = .unavailable(reason: "offline")
        #expect(!viewModel.navigate(.back))
        #expect(navigator.actions == [.details(orderID: 7), .back])
    }

    @Test func navigatingAfterClearIsReportedAndDoesNothing() {
        let navigator = RecordingNavigator<ShopNavigation>()
        let viewModel = NavigatingViewModel(navigator: navigator, loop: TestLoop())
        viewModel.clear()
        let diagnostics = DiagnosticsRecorder()
        let navigated = diagnostics.record { viewModel.navigate(.back) }
        #expect(!navigated)
        #expect(navigator.actions.isEmpty)
        #expect(diagnostics.kinds == [.transitionAfterClear])
    }
}
