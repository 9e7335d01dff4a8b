import Foundation
import MainlineCoordinators
import MainlineLoop
import MainlineTesting
import Testing

/// The README's coordinator: one screen per step of a sign-up, completing with the email entered.
@MainActor
final class SignUpCoordinator: Coordinator<String>, RoutableCoordinator {
    struct Input: Decodable { var email: String? }
    let email: String?

    init(
        email: String? = nil,
        completed: @escaping @MainActor (String) -> Void = { _ in },
        cancelled: @escaping @MainActor () -> Void = {}
    ) {
        self.email = email
        super.init(completed: completed, cancelled: cancelled)
    }

    convenience init(routeData: RouteData) throws {
        self.init(email: try routeData.decode(Input.self).email)
    }

    override func start() {
        show(Screen(email == nil ? "enter email" : "confirm \(email!)", owner: self))
    }
}

struct Order: Identifiable, Equatable, Sendable {
    let id: Int
    var status: String
}

struct Shop: Equatable, Sendable {
    var orders: [Order] = []
}

/// The README's tour of coordinators and routes, as tests: the snippets there are copied from this file.
@MainActor
@Suite("README: coordinators and routes")
struct CoordinatorReadmeExampleTests {
    @Test func aCoordinatorIsReleasedAndCancelledWithItsLastScreen() {
        let stack = NavigationStack(root: Screen("home"), loop: TestLoop())
        var outcome = "running"
        do {
            let signUp = SignUpCoordinator(
                completed: { outcome = "signed up \($0)" },
                cancelled: { outcome = "cancelled" }
            )
            signUp.start(presentation: .push(stack))
        }
        #expect(stack.top.current?.name == "enter email")
        stack.pop()  // the flow's last screen leaves: the coordinator is released, and cancelled
        #expect(outcome == "cancelled")
    }

    @Test func aRouteJumpsStraightIntoANestedStep() throws {
        let stack = NavigationStack(root: Screen("home"), loop: TestLoop())
        let modal = ModalSlot(loop: TestLoop())
        let registry = RouteRegistry()
        registry.register(SignUpCoordinator.self, as: "sign-up")

        let route = try Route(
            json: Data(
                """
                {"coordinatorPath": {"id": "app", "items": [
                    {"id": "sign-up", "present": "push", "data": {"email": "ada@example.com"}}
                ]}}
                """.utf8
            )
        )
        try registry.perform(route, from: nil, stack: stack, modal: modal)
        #expect(stack.top.current?.name == "confirm ada@example.com")
    }

    @Test func aDataCacheMergesByIdAndNotifiesOnlyOnChange() {
        let cache = DataCache(value: Shop(), loop: TestLoop())
        var notifications = 0
        let observation = cache.observe { _ in notifications += 1 }

        cache.populate(\.orders, with: [Order(id: 1, status: "new"), Order(id: 2, status: "new")])
        cache.populate(\.orders, with: [Order(id: 2, status: "shipped")])  // replaces 2 in place, keeps 1
        cache.populate(\.orders, with: [Order(id: 2, status: "shipped")])  // nothing changed: silent
        #expect(cache.value.orders.map(\.status) == ["new", "shipped"])
        #expect(notifications == 3)  // at once, then two changes
        observation.dispose()
    }
}
