import MainlineCoordinators
import MainlineLoop
import MainlineTesting
import Testing

/// The headless containers: stack arithmetic (with the no-op cases and their diagnostics), tabs, the modal slot.
@MainActor
@Suite("Containers")
struct ContainerTests {
    @Test func stackArithmetic() {
        let root = Screen("root")
        let stack = NavigationStack(root: root, loop: TestLoop())
        let a = Screen("a")
        let b = Screen("b")
        let c = Screen("c")
        for screen in [a, b, c] { stack.navigate(to: screen) }
        #expect(stack.screens.map(\.name) == ["root", "a", "b", "c"])
        #expect(stack.top.current === c)
        #expect(stack.pop())
        #expect(stack.top.current === b)
        #expect(stack.pop(to: a))
        #expect(stack.path.current.map(\.name) == ["a"])
        stack.navigate(to: c)
        #expect(stack.pop(to: root))
        #expect(stack.path.current.isEmpty)
        #expect(stack.top.current === root)
        stack.navigate(to: b)
        stack.popToRoot()
        #expect(stack.screens.map(\.name) == ["root"])
        stack.reset(root: a)
        #expect(stack.screens.map(\.name) == ["a"])
        stack.reset()
        #expect(stack.screens.isEmpty && stack.top.current == nil)
    }

    @Test func poppingAnEmptyStackOrToAMissingScreenReturnsFalseAndIsReported() {
        let stack = NavigationStack(root: Screen("root"), loop: TestLoop())
        let diagnostics = DiagnosticsRecorder()
        let popped = diagnostics.record { stack.pop() }
        let poppedTo = diagnostics.record { stack.pop(to: Screen("elsewhere")) }
        #expect(!popped && !poppedTo)
        #expect(diagnostics.kinds == [.popEmptyStack, .popToMissingScreen])
        #expect(stack.screens.map(\.name) == ["root"])
    }

    @Test func hostsObserveTheTopScreen() {
        let stack = NavigationStack(root: Screen("root"), loop: TestLoop())
        var shown: [String] = []
        let rendering = stack.top.observe { shown.append($0?.name ?? "-") }
        stack.navigate(to: Screen("a"))
        stack.pop()
        stack.popToRoot()
        #expect(shown == ["root", "a", "root"], "popToRoot with nothing above the root changes nothing")
        rendering.dispose()
    }

    @Test func tabsSelectAddAndRemove() {
        let home = Screen("home")
        let search = Screen("search")
        let tabs = Tabs([home, search], loop: TestLoop())
        #expect(tabs.selectedTab.current === home)
        #expect(tabs.select(search))
        #expect(!tabs.select(Screen("stranger")))
        #expect(tabs.selectedTab.current === search)
        let more = Screen("more")
        tabs.add(more)
        #expect(tabs.selectedTab.current === search, "adding does not select unless asked")
        #expect(tabs.remove(search))
        #expect(tabs.selectedTab.current === home)
        #expect(!tabs.remove(search))
        #expect(tabs.tabs.current.map(\.name) == ["home", "more"])
    }

    @Test func presentingOverAModalDismissesTheOldOneFirst() {
        let slot = ModalSlot(loop: TestLoop())
        var dismissed: [String] = []
        slot.onModalDismiss = { dismissed.append($0.name) }
        slot.present(modal: Screen("first"))
        #expect(slot.style == .sheet)
        slot.present(modal: Screen("second"), style: .fullScreen)
        #expect(dismissed == ["first"])
        #expect(slot.modal.current?.name == "second")
        #expect(slot.style == .fullScreen)
    }
}
