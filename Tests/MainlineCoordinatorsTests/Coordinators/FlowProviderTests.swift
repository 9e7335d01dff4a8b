import MainlineCoordinators
import MainlineLoop
import MainlineTesting
import Testing

@MainActor
@Suite("FlowProvider")
struct FlowProviderTests {
    enum End: Equatable { case confirmed(String), cancelled }

    @Test func aFlowPushesItsScreensAndEndingRemovesThemAndHandsBackOnce() {
        let stack = NavigationStack(root: Screen("cart"), loop: TestLoop())
        stack.navigate(to: Screen("checkout"))
        var ends: [End] = []
        let flow = FlowProvider<End>(stack: stack) { ends.append($0) }
        flow.navigate(to: Screen("street"))
        flow.navigate(to: Screen("city"))
        #expect(stack.screens.map(\.name) == ["cart", "checkout", "street", "city"])
        #expect(flow.pop())
        #expect(flow.pushedScreens.map(\.name) == ["street"])
        flow.end(with: .confirmed("Main St"))
        flow.end(with: .cancelled)
        #expect(ends == [.confirmed("Main St")])
        #expect(stack.screens.map(\.name) == ["cart", "checkout"], "the host's screens stay")
        #expect(flow.isEnded)
        flow.navigate(to: Screen("late"))
        #expect(stack.screens.count == 2, "an ended flow pushes nothing")
    }

    @Test func aFlowNeverPopsItsHostsScreens() {
        let stack = NavigationStack(root: Screen("root"), loop: TestLoop())
        let flow = FlowProvider<End>(stack: stack) { _ in }
        stack.navigate(to: Screen("host"))
        #expect(!flow.pop())
        #expect(stack.screens.map(\.name) == ["root", "host"])
        flow.navigate(to: Screen("first"))
        flow.end(with: .cancelled)
        #expect(stack.screens.map(\.name) == ["root", "host"])
    }
}
