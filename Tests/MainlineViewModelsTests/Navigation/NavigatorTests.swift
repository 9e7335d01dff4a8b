import MainlineTesting
import MainlineViewModels
import Testing

/// `Navigator`'s conveniences, `navigateWithSuccess` and `navigateOrElse`, over any navigator.
@MainActor
@Suite("Navigator")
struct NavigatorTests {
    /// A navigator with no help screen: it navigates to everything else and records where.
    final class NoHelpNavigator: Navigator {
        var shown: [OrdersNavigation] = []

        func navigate(_ action: OrdersNavigation) throws(NavigationError) {
            if action == .help { throw .unsupportedAction("\(action)") }
            shown.append(action)
        }
    }

    @Test func navigateWithSuccessReturnsTrueWhenTheNavigatorNavigated() {
        let navigator = NoHelpNavigator()
        #expect(navigator.navigateWithSuccess(.close))
        #expect(navigator.shown == [.close])
    }

    @Test func navigateWithSuccessReturnsFalseWhenTheNavigatorThrows() {
        let navigator = NoHelpNavigator()
        #expect(!navigator.navigateWithSuccess(.help))
        #expect(navigator.shown.isEmpty)
    }

    @Test func navigateOrElseCallsOnFailureOnceWithTheError() {
        let navigator = NoHelpNavigator()
        var failures: [NavigationError] = []
        navigator.navigateOrElse(.help) { failures.append($0) }
        #expect(failures == [.unsupportedAction("help")])
    }

    @Test func navigateOrElseDoesNotCallOnFailureWhenTheNavigatorNavigated() {
        let navigator = NoHelpNavigator()
        var failures: [NavigationError] = []
        navigator.navigateOrElse(.close) { failures.append($0) }
        #expect(failures.isEmpty)
        #expect(navigator.shown == [.close])
    }

    @Test func theConveniencesWorkThroughAnExistential() {
        let navigator: any Navigator<OrdersNavigation> = RecordingNavigator(failure: .unavailable(reason: "closed"))
        #expect(!navigator.navigateWithSuccess(.close))
        var failure: NavigationError?
        navigator.navigateOrElse(.help) { failure = $0 }
        #expect(failure == .unavailable(reason: "closed"))
        #expect(throws: NavigationError.unavailable(reason: "closed")) { try navigator.navigate(.close) }
    }

    @Test func navigationErrorsDescribeWhatFailed() {
        #expect(NavigationError.unsupportedAction("help").description == "The navigator has no destination for help.")
        #expect(
            NavigationError.unavailable(reason: "closed").description == "The navigator cannot navigate now: closed."
        )
        #expect(
            NavigationError.failed(action: "checkout", reason: "no order").description
                == "Navigating to checkout failed: no order."
        )
    }
}
