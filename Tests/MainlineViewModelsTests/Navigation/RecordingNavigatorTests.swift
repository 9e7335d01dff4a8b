import MainlineViewModels
import Testing

/// The test double `RecordingNavigator`: records in call order, throws when told to.
@MainActor
@Suite("RecordingNavigator")
struct RecordingNavigatorTests {
    @Test func itRecordsEveryActionInCallOrder() throws {
        let navigator = RecordingNavigator<OrdersNavigation>()
        let bundle = Address.bundle("Main Street", 12)
        try navigator.navigate(.help)
        try navigator.navigate(.checkout(bundle))
        try navigator.navigate(.help)
        #expect(navigator.actions == [.help, .checkout(bundle), .help])
        #expect(try navigator.actions[1].bundle?.get(Address.street) == "Main Street")
    }

    @Test func itThrowsItsFailureAndStillRecordsTheAction() {
        let navigator = RecordingNavigator<OrdersNavigation>(failure: .unavailable(reason: "closed"))
        #expect(throws: NavigationError.unavailable(reason: "closed")) { try navigator.navigate(.help) }
        #expect(!navigator.navigateWithSuccess(.close))
        #expect(navigator.actions == [.help, .close])
    }

    @Test func itCanBeToldToThrowAndToSucceedAgain() throws {
        let navigator = RecordingNavigator<OrdersNavigation>()
        try navigator.navigate(.help)
        navigator.failure = .failed(action: "close", reason: "busy")
        #expect(throws: NavigationError.failed(action: "close", reason: "busy")) { try navigator.navigate(.close) }
        navigator.failure = nil
        try navigator.navigate(.close)
        #expect(navigator.actions == [.help, .close, .close])
    }

    @Test func removeAllActionsForgetsTheRecordButNotTheFailure() {
        let navigator = RecordingNavigator<OrdersNavigation>(failure: .unavailable(reason: "closed"))
        _ = navigator.navigateWithSuccess(.help)
        navigator.removeAllActions()
        #expect(navigator.actions.isEmpty)
        #expect(navigator.failure == .unavailable(reason: "closed"))
    }
}
