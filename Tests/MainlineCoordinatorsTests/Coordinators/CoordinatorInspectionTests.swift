import Foundation
import MainlineCoordinators
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
    static func coordinators() async -> [_InspectionValue] {
        await Task.detached { _InspectionRegistry.shared.describe(.coordinators) }.value
    }

    /// The id of the entry registered last: read at once, on the main actor, before any other test can register one.
    static func newestID() -> _InspectionValue? {
        _InspectionRegistry.shared.describe(.coordinators).last?["id"]
    }

    static func entry(_ id: _InspectionValue?) async -> _InspectionValue? {
        await coordinators().first { $0["id"] == id }
    }

    @Test func aNavigationStackShowsItsScreensWithTheirOwnersAfterEveryChange() async {
        _InspectionRegistry.shared.activate()
        let stack = NavigationStack(root: Screen("home"), loop: TestLoop())
        let id = Self.newestID()
        #expect(
            await Self.entry(id)
                == .object([
                    ("type", .string("NavigationStack")), ("id", id!), ("state", .null),
                    ("stack", .array([.string("home")])),
                ])
        )

        let flow = SignUpCoordinator()
        flow.start(presentation: .push(stack))
        stack.navigate(to: Screen("help"))
        #expect(
            await Self.entry(id)?["stack"]
                == .array([.string("home"), .string("email (SignUpCoordinator)"), .string("help")])
        )
        stack.pop()
        #expect(await Self.entry(id)?["stack"] == .array([.string("home"), .string("email (SignUpCoordinator)")]))
        stack.reset(root: Screen("start"))
        #expect(await Self.entry(id)?["stack"] == .array([.string("start")]))
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
                == .object([
                    ("type", .string("SignUpCoordinator")), ("id", parentID!), ("state", .string("running")),
                    ("parent", .null), ("parentType", .null), ("presentation", .string("push")),
                    ("stack", .array([.string("email"), .string("PasswordCoordinator (child)")])),
                ])
        )
        #expect(await Self.entry(childID)?["parent"] == parentID)
        #expect(await Self.entry(childID)?["parentType"] == .string("SignUpCoordinator"))
        #expect(await Self.entry(childID)?["stack"] == .array([.string("password")]))

        child.complete(with: "secret")
        #expect(await Self.entry(childID)?["state"] == .string("completed"))
        #expect(await Self.entry(parentID)?["stack"] == .array([.string("email")]), "a finished child is not listed")
        parent.cancel()
        #expect(await Self.entry(parentID)?["state"] == .string("cancelled"))
    }

    @Test func aModalSlotShowsItsModalAndStyleAndTabsTheirSelection() async {
        _InspectionRegistry.shared.activate()
        let loop = TestLoop()
        let slot = ModalSlot(loop: loop)
        let slotID = Self.newestID()
        let tabs = Tabs([Screen("inbox"), Screen("sent")], loop: loop)
        let tabsID = Self.newestID()

        slot.present(modal: Screen("filter"), style: .fullScreen)
        #expect(await Self.entry(slotID)?["stack"] == .array([.string("filter")]))
        #expect(await Self.entry(slotID)?["style"] == .string("fullScreen"))
        slot.dismissModal()
        #expect(await Self.entry(slotID)?["stack"] == .array([]))

        #expect(await Self.entry(tabsID)?["stack"] == .array([.string("inbox"), .string("sent")]))
        #expect(await Self.entry(tabsID)?["selected"] == .string("inbox"))
        let drafts = Screen("drafts")
        tabs.add(drafts, select: true)
        #expect(await Self.entry(tabsID)?["selected"] == .string("drafts"))
        tabs.remove(drafts)
        #expect(await Self.entry(tabsID)?["stack"] == .array([.string("inbox"), .string("sent")]))
    }

    @Test func aCoordinatorReleasedWithItsLastScreenIsNoLongerShown() async {
        _InspectionRegistry.shared.activate()
        let stack = NavigationStack(root: Screen("home"), loop: TestLoop())
        var id: _InspectionValue?
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
