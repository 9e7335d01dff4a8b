import MainlineCoordinators
import MainlineLoop
import MainlineTesting
import Testing

/// A coordinator that shows one screen per step and logs how it finished.
@MainActor
final class StepsCoordinator: Coordinator<String> {
    let steps: [String]

    init(steps: [String], log: Log) {
        self.steps = steps
        super.init(completed: { log.add("completed \($0)") }, cancelled: { log.add("cancelled") })
    }

    override func start() {
        for step in steps { show(Screen(step, owner: self)) }
    }
}

@MainActor
final class Log {
    private(set) var entries: [String] = []
    func add(_ entry: String) { entries.append(entry) }
}

/// Coordinators finish exactly once, and are released (and cancelled) with their last screen.
@MainActor
@Suite("Coordinators")
struct CoordinatorTests {
    @Test func completeThenReleaseRunsCompletedOnceAndNeverCancelled() {
        let log = Log()
        let stack = NavigationStack(loop: TestLoop())
        do {
            let flow = StepsCoordinator(steps: ["a"], log: log)
            flow.start(presentation: .push(stack))
            flow.complete(with: "done")
        }
        stack.popToRoot()
        #expect(log.entries == ["completed done"])
    }

    @Test func cancelThenCompleteRunsCancelledOnceAndReportsTheSecondResult() {
        let log = Log()
        let flow = StepsCoordinator(steps: [], log: log)
        flow.cancel()
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            flow.complete(with: "late")
            flow.cancel()
        }
        #expect(log.entries == ["cancelled"])
        #expect(diagnostics.kinds == [.coordinatorAlreadyFinished])
        #expect(flow.isFinished)
    }

    @Test func cancellingAfterCompletingChangesNothing() {
        let log = Log()
        let flow = StepsCoordinator(steps: [], log: log)
        flow.complete(with: "x")
        flow.cancel()
        #expect(flow.result == .completed("x"))
        #expect(log.entries == ["completed x"])
    }

    @Test func releaseWithoutFinishingRunsCancelledOnce() {
        let log = Log()
        do { _ = StepsCoordinator(steps: [], log: log) }
        #expect(log.entries == ["cancelled"])
    }

    @Test func aCoordinatorIsReleasedAndCancelledWhenItsLastScreenIsPopped() {
        let log = Log()
        let stack = NavigationStack(root: Screen("home"), loop: TestLoop())
        weak var weakFlow: StepsCoordinator?
        do {
            let flow = StepsCoordinator(steps: ["one", "two"], log: log)
            weakFlow = flow
            flow.start(presentation: .push(stack))
        }
        #expect(weakFlow != nil, "its screens keep it alive")
        stack.pop()
        #expect(log.entries.isEmpty && weakFlow != nil, "one screen left")
        stack.pop()
        #expect(weakFlow == nil)
        #expect(log.entries == ["cancelled"])
    }

    @Test func aCoordinatorIsReleasedWhenItsModalIsDismissed() {
        let log = Log()
        let slot = ModalSlot(loop: TestLoop())
        var dismissed: [String] = []
        slot.onModalDismiss = { dismissed.append($0.name) }
        do {
            let flow = StepsCoordinator(steps: ["dialog"], log: log)
            flow.start(presentation: .present(slot, style: .fullScreen))
        }
        #expect(slot.style == .fullScreen)
        #expect(slot.modal.current?.name == "dialog")
        #expect(slot.dismissModal())
        #expect(dismissed == ["dialog"])
        #expect(log.entries == ["cancelled"])
        #expect(!slot.dismissModal(), "nothing left to dismiss")
    }

    @Test func aCoordinatorIsReleasedWhenItsTabIsRemoved() {
        let log = Log()
        let tabs = Tabs([Screen("home")], loop: TestLoop())
        do {
            let flow = StepsCoordinator(steps: ["inbox"], log: log)
            flow.start(presentation: .tab(tabs))
        }
        #expect(tabs.selectedTab.current?.name == "inbox")
        #expect(tabs.remove(tabs.selectedTab.current!))
        #expect(tabs.selectedTab.current?.name == "home")
        #expect(log.entries == ["cancelled"])
    }

    @Test func childrenKnowTheirParentAndLiveWithTheirScreens() {
        let log = Log()
        let stack = NavigationStack(loop: TestLoop())
        let parent = StepsCoordinator(steps: ["parent"], log: log)
        parent.start(presentation: .push(stack))
        weak var weakChild: StepsCoordinator?
        do {
            let child = StepsCoordinator(steps: ["child"], log: Log())
            weakChild = child
            parent.startChild(child, presentation: .push(stack))
        }
        #expect(weakChild?.parent === parent)
        stack.pop()
        #expect(weakChild == nil, "popping the child's screen released it")
        #expect(!parent.isFinished)
        parent.complete(with: "ok")
    }

    @Test func aDelegatingCoordinatorHandsOffAndCancelsThePreviousChild() {
        let log = Log()
        let stack = NavigationStack(loop: TestLoop())
        let root = DelegatingCoordinator<Void>()
        let login = StepsCoordinator(steps: ["login"], log: log)
        root.handOff(to: login, presentation: .push(stack))
        #expect(root.child === login)
        let main = StepsCoordinator(steps: ["main"], log: log)
        stack.reset()
        root.handOff(to: main, presentation: .push(stack))
        #expect(log.entries == ["cancelled"], "the login flow was cancelled by the hand-off")
        #expect(main.parent === root)
        #expect(stack.path.current.map(\.name) == ["main"])
    }
}
