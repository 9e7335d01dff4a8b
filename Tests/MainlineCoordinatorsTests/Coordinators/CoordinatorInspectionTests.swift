import Foundation
import MainlineCoordinators
import MainlineInspectorSchema
import MainlineLoop
import MainlineTesting
import Testing

/// What coordinators and their containers show an inspector: each coordinator's type, state, parent, presentation and
/// stack (its screens, then its running children), each container's screens — from copies updated on every push, pop
/// and present, read on another thread — once an inspector has started, and nothing in a process that never started
/// one.
@MainActor
@Suite("Coordinators under an inspector")
struct CoordinatorInspectionTests {
    final class SignUpCoordinator: Coordinator<String> {
        override func start() { show(Screen("email", owner: self)) }
    }

    final class PasswordCoordinator: Coordinator<String> {
        override func start() { show(Screen("password", owner: self)) }
    }

    /// The shared registry's coordinators list (read on another thread, as the inspector reads it), newest last.
    static func coordinators() async -> [CoordinatorSummary] {
        await Task.detached { _InspectionRegistry.shared.describe(.coordinators, as: CoordinatorSummary.self) }.value
    }

    /// The id of the entry registered last: read at once, on the main actor, before any other test can register one.
    static func newestID() -> Int? {
        _InspectionRegistry.shared.describe(.coordinators, as: CoordinatorSummary.self).last?.id
    }

    static func entry(_ id: Int?) async -> CoordinatorSummary? {
        await coordinators().first { $0.id == id }
    }

    @Test func aNavigationStackShowsItsScreensWithTheirOwnersAfterEveryChange() async {
        _InspectionRegistry.shared.activate()
        let stack = NavigationStack(root: Screen("home"), loop: TestLoop())
        let id = Self.newestID()
        #expect(
            await Self.entry(id)
                == CoordinatorSummary(type: "NavigationStack", id: id!, state: nil, stack: ["home"])
        )

        let flow = SignUpCoordinator()
        flow.start(presentation: .push(stack))
        stack.navigate(to: Screen("help"))
        #expect(
            await Self.entry(id)?.stack
                == ["home", "email (SignUpCoordinator)", "help"]
        )
        stack.pop()
        #expect(await Self.entry(id)?.stack == ["home", "email (SignUpCoordinator)"])
        stack.reset(root: Screen("start"))
        #expect(await Self.entry(id)?.stack == ["start"])
    }

    @Test func aCoordinatorShowsItsStateParentPresentationScreensAndRunningChildren() async {
        _InspectionRegistry.shared.activate()
        let stack = NavigationStack(loop: TestLoop())
        let parent = SignUpCoordinator()
        let parentID = Self.newestID()
        parent.start(presentation: .push(stack))
        let child = PasswordCoordinator()
        let childID = Self.newestID()
        parent.startChild(child, presentation: .push(stack))

        #expect(
            await Self.entry(parentID)
                == CoordinatorSummary(
                    type: "SignUpCoordinator",
                    id: parentID!,
                    state: "running",
                    parent: nil,
                    parentType: nil,
                    presentation: "push",
                    stack: ["email", "PasswordCoordinator (child)"]
                )
        )
        #expect(await Self.entry(childID)?.parent == parentID)
        #expect(await Self.entry(childID)?.parentType == "SignUpCoordinator")
        #expect(await Self.entry(childID)?.stack == ["password"])

        child.complete(with: "secret")
        #expect(await Self.entry(childID)?.state == "completed")
        #expect(await Self.entry(parentID)?.stack == ["email"], "a finished child is not listed")
        parent.cancel()
        #expect(await Self.entry(parentID)?.state == "cancelled")
    }

    @Test func aModalSlotShowsItsModalAndStyleAndTabsTheirSelection() async {
        _InspectionRegistry.shared.activate()
        let loop = TestLoop()
        let slot = ModalSlot(loop: loop)
        let slotID = Self.newestID()
        let tabs = Tabs([Screen("inbox"), Screen("sent")], loop: loop)
        let tabsID = Self.newestID()

        slot.present(modal: Screen("filter"), style: .fullScreen)
        #expect(await Self.entry(slotID)?.stack == ["filter"])
        #expect(await Self.entry(slotID)?.style == "fullScreen")
        slot.dismissModal()
        #expect(await Self.entry(slotID)?.stack == [])

        #expect(await Self.entry(tabsID)?.stack == ["inbox", "sent"])
        #expect(await Self.entry(tabsID)?.selected == "inbox")
        let drafts = Screen("drafts")
        tabs.add(drafts, select: true)
        #expect(await Self.entry(tabsID)?.selected == "drafts")
        tabs.remove(drafts)
        #expect(await Self.entry(tabsID)?.stack == ["inbox", "sent"])
    }

    @Test func aCoordinatorReleasedWithItsLastScreenIsNoLongerShown() async {
        _InspectionRegistry.shared.activate()
        let stack = NavigationStack(root: Screen("home"), loop: TestLoop())
        var id: Int?
        do {
            let flow = SignUpCoordinator()
            id = Self.newestID()
            flow.start(presentation: .push(stack))
        }
        #expect(await Self.entry(id) != nil, "its screen keeps it")
        stack.popToRoot()
        #expect(await Self.entry(id) == nil)
    }

    @Test func inAProcessThatNeverStartedAnInspectorCoordinatorsRegisterNothing() async {
        await #expect(processExitsWith: .success) {
            await MainActor.run {
                let loop = TestLoop()
                let stack = NavigationStack(root: Screen("home"), loop: loop)
                let flow = SignUpCoordinator()
                flow.start(presentation: .push(stack))
                _ = (ModalSlot(loop: loop), Tabs([], loop: loop))
                precondition(!_InspectionRegistry.shared.isActive)
                precondition(_InspectionRegistry.shared.entryCount(.coordinators) == 0, "a coordinator registered")
            }
        }
    }
}
