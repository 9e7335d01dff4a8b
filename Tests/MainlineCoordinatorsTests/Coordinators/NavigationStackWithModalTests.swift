import MainlineCoordinators
import MainlineLoop
import MainlineTesting
import Testing

/// The stack with its modal slot (issue 13, item 8): `reset` clears both, as FuturedKit's stack coordinator's
/// `reset()` does; the pops change the path only and leave a presented modal, as upstream's do.
@MainActor
@Suite("NavigationStackWithModal")
struct NavigationStackWithModalTests {
    @Test func resetClearsThePathAndDismissesTheModal() {
        let home = Screen("home")
        let flow = NavigationStackWithModal(root: home, loop: TestLoop())
        var dismissed: [String] = []
        flow.modal.onModalDismiss = { dismissed.append($0.name) }
        flow.navigate(to: Screen("orders"))
        flow.navigate(to: Screen("order"))
        flow.present(modal: Screen("filter"), style: .fullScreen)

        flow.reset(root: home)

        #expect(flow.stack.screens.map(\.name) == ["home"])
        #expect(flow.stack.top.current === home)
        #expect(flow.modal.modal.current == nil)
        #expect(flow.modal.style == nil)
        #expect(dismissed == ["filter"], "the modal's onModalDismiss runs, as a sheet's onDismiss does upstream")
    }

    @Test func resetChangesTheStackFirstThenTheModalAsUpstreamDoes() {
        let flow = NavigationStackWithModal(root: Screen("home"), loop: TestLoop())
        flow.navigate(to: Screen("orders"))
        flow.present(modal: Screen("filter"))
        var seen: [String] = []
        let top = flow.stack.top.observe { seen.append("top \($0?.name ?? "-")") }
        let modal = flow.modal.modal.observe { seen.append("modal \($0?.name ?? "-")") }
        seen = []

        flow.reset()

        #expect(seen == ["top -", "modal -"])
        top.dispose()
        modal.dispose()
    }

    @Test func resetReleasesAndCancelsTheCoordinatorsOfThePathAndOfTheModal() {
        let log = Log()
        let flow = NavigationStackWithModal(root: Screen("home"), loop: TestLoop())
        do {
            StepsCoordinator(steps: ["pushed"], log: log).start(presentation: .push(flow.stack))
            StepsCoordinator(steps: ["presented"], log: log).start(presentation: .present(flow.modal, style: .sheet))
        }
        #expect(log.entries.isEmpty, "their screens hold them")

        flow.reset()

        #expect(log.entries == ["cancelled", "cancelled"])
    }

    @Test func resetWithNoModalShownOnlyResetsTheStack() {
        let flow = NavigationStackWithModal(loop: TestLoop())
        var dismissals = 0
        flow.modal.onModalDismiss = { _ in dismissals += 1 }
        flow.navigate(to: Screen("a"))
        flow.reset(root: Screen("b"))
        #expect(flow.stack.screens.map(\.name) == ["b"])
        #expect(dismissals == 0)
    }

    @Test func popWithAModalShownPopsTheStackUnderneathAndLeavesTheModal() {
        let flow = NavigationStackWithModal(root: Screen("home"), loop: TestLoop())
        let orders = Screen("orders")
        flow.navigate(to: orders)
        flow.navigate(to: Screen("order"))
        flow.navigate(to: Screen("receipt"))
        let filter = Screen("filter")
        flow.present(modal: filter, style: .sheet)
        var dismissed = 0
        flow.modal.onModalDismiss = { _ in dismissed += 1 }

        #expect(flow.pop())
        #expect(flow.stack.top.current?.name == "order")
        #expect(flow.pop(to: orders))
        #expect(flow.stack.top.current === orders)
        flow.popToRoot()
        #expect(flow.stack.screens.map(\.name) == ["home"])

        #expect(flow.modal.modal.current === filter, "upstream's pops change the path only")
        #expect(flow.modal.style == .sheet)
        #expect(dismissed == 0)
        #expect(flow.dismissModal())
        #expect(flow.modal.modal.current == nil && dismissed == 1)
        #expect(!flow.dismissModal(), "nothing left to dismiss")
    }

    @Test func poppingAnEmptyStackUnderAModalReturnsFalseReportsAndKeepsTheModal() {
        let flow = NavigationStackWithModal(root: Screen("home"), loop: TestLoop())
        flow.present(modal: Screen("filter"))
        let diagnostics = DiagnosticsRecorder()
        let popped = diagnostics.record { flow.pop() }
        let poppedTo = diagnostics.record { flow.pop(to: Screen("elsewhere")) }
        #expect(!popped && !poppedTo)
        #expect(diagnostics.kinds == [.popEmptyStack, .popToMissingScreen])
        #expect(flow.modal.modal.current?.name == "filter")
        #expect(flow.stack.screens.map(\.name) == ["home"])
    }

    @Test func presentingOverAModalDismissesTheOldOneFirst() {
        let flow = NavigationStackWithModal(loop: TestLoop())
        var dismissed: [String] = []
        flow.modal.onModalDismiss = { dismissed.append($0.name) }
        flow.present(modal: Screen("first"))
        flow.present(modal: Screen("second"), style: .fullScreen)
        #expect(dismissed == ["first"])
        #expect(flow.modal.modal.current?.name == "second" && flow.modal.style == .fullScreen)
    }
}
