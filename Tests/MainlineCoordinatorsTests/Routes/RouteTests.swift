import Foundation
import MainlineCoordinators
import MainlineLoop
import MainlineTesting
import Testing

/// A routable coordinator that records every start in a shared journal.
@MainActor
final class JournalingCoordinator: Coordinator<Void>, RoutableCoordinator {
    struct Input: Decodable { var name: String }
    // nonisolated(unsafe): read and written only on the main actor, by the serialized @MainActor suite below.
    nonisolated(unsafe) static var journal: [(name: String, parent: String?)] = []
    let name: String

    init(routeData: RouteData) throws {
        name = try routeData.decode(Input.self).name
        super.init(cancelled: { Self.journal.append((name: "cancelled", parent: nil)) })
    }

    override func start() {
        Self.journal.append((name: name, parent: (parent as? JournalingCoordinator)?.name))
        show(Screen(name, owner: self))
    }
}

/// Route deep links: all-or-nothing performing, the four typed errors, spellings, any-thread arrival, fuzzing.
@MainActor
@Suite("Route deep links", .serialized)
struct RouteTests {
    let stack = NavigationStack(loop: TestLoop())
    let modal = ModalSlot(loop: TestLoop())
    let registry: RouteRegistry = {
        let registry = RouteRegistry()
        registry.register(JournalingCoordinator.self, as: "journal")
        return registry
    }()

    init() { JournalingCoordinator.journal = [] }

    func route(_ json: String) throws(RouteError) -> Route { try Route(json: Data(json.utf8)) }

    @Test func aValidPathStartsTheChainInOrderEachTheChildOfThePrevious() throws {
        let route = try route(
            """
            {"coordinatorPath": {"id": "shop", "items": [
                {"id": "journal", "present": "push", "data": {"name": "orders"}},
                {"id": "journal", "present": "present", "presentStyle": "fullScreen", "data": {"name": "order"}},
                {"id": "journal", "present": "push", "data": {"name": "receipt"}}
            ]}}
            """
        )
        #expect(route.id == "shop")
        #expect(route.items.map(\.style) == [nil, .fullScreen, nil], "upstream's presentStyle spelling is accepted")
        let started = try registry.perform(route, from: nil, stack: stack, modal: modal)
        #expect(started.count == 3)
        #expect(JournalingCoordinator.journal.map(\.name) == ["orders", "order", "receipt"])
        #expect(JournalingCoordinator.journal.map(\.parent) == [nil, "orders", "order"])
        #expect(stack.path.current.map(\.name) == ["orders", "receipt"])
        #expect(modal.modal.current?.name == "order")
        #expect(modal.style == .fullScreen)
    }

    @Test(arguments: [
        ("not json", RouteError.invalidNotificationPath(reason: "")),
        ("{}", .invalidNotificationPath(reason: "")),
        (#"{"coordinatorPath": {"id": "x", "items": []}}"#, .invalidNotificationPath(reason: "")),
        (#"{"coordinatorPath": {"id": "x", "items": [{"present": "push"}]}}"#, .itemJSONInvalid(index: 0, reason: "")),
        (
            #"{"coordinatorPath": {"id": "x", "items": [{"id": "journal", "present": "push", "data": {"name": "a"}}, {"id": "journal", "present": "sideways"}]}}"#,
            .itemJSONInvalid(index: 1, reason: "")
        ),
        (
            #"{"coordinatorPath": {"id": "x", "items": [{"id": "journal", "present": "present", "presentationStyle": "popover", "data": {"name": "a"}}]}}"#,
            .itemJSONInvalid(index: 0, reason: "")
        ),
    ])
    func malformedRoutesThrowTheirTypedError(json: String, expected: RouteError) {
        #expect {
            _ = try route(json)
        } throws: { error in
            switch (error as? RouteError, expected) {
            case (.invalidNotificationPath?, .invalidNotificationPath): true
            case (.itemJSONInvalid(let index, _)?, .itemJSONInvalid(let expectedIndex, _)): index == expectedIndex
            default: false
            }
        }
    }

    @Test func anItemWithoutPresentIsRejectedAsUpstreamDoesNotPushed() throws {
        #expect(
            throws: RouteError.itemJSONInvalid(index: 1, reason: #"no "present"; expected push or present"#)
        ) {
            try route(
                #"{"coordinatorPath": {"id": "x", "items": [{"id": "journal", "present": "push", "data": {"name": "a"}}, {"id": "journal", "data": {"name": "b"}}]}}"#
            )
        }
        #expect(throws: RouteError.self) {
            try route(#"{"coordinatorPath": {"id": "x", "items": [{"id": "journal", "present": null}]}}"#)
        }
        #expect(JournalingCoordinator.journal.isEmpty)
        #expect(stack.path.current.isEmpty)
    }

    @Test func anUnknownIdInTheLastItemStartsNothing() throws {
        let route = try route(
            #"{"coordinatorPath": {"id": "x", "items": [{"id": "journal", "present": "push", "data": {"name": "a"}}, {"id": "nobody", "present": "push"}]}}"#
        )
        #expect(throws: RouteError.idNotRegistered("nobody")) {
            try registry.perform(route, from: nil, stack: stack, modal: modal)
        }
        #expect(JournalingCoordinator.journal.isEmpty, "nothing started, and the built coordinator left silently")
        #expect(stack.path.current.isEmpty)
    }

    @Test func dataThatDoesNotFitStartsNothing() throws {
        let route = try route(
            #"{"coordinatorPath": {"id": "x", "items": [{"id": "journal", "present": "push", "data": {"name": "a"}}, {"id": "journal", "present": "push", "data": {"title": 1}}]}}"#
        )
        #expect {
            try registry.perform(route, from: nil, stack: stack, modal: modal)
        } throws: { error in
            if case .invalidInputData(id: "journal", _)? = error as? RouteError { true } else { false }
        }
        #expect(JournalingCoordinator.journal.isEmpty)
    }

    @Test func aRouteArrivingOnAnotherThreadIsPerformedOnTheLoop() async throws {
        let loop = TestLoop()
        let registry = registry
        let stack = stack
        let modal = modal
        let json = Data(
            #"{"coordinatorPath": {"id": "x", "items": [{"id": "journal", "present": "push", "data": {"name": "remote"}}]}}"#
                .utf8
        )
        let arrival = Task.detached {
            try await RouteRegistry.receive(json: json, on: loop) { route throws(RouteError) in
                try registry.perform(route, from: nil, stack: stack, modal: modal)
            }
        }
        await loop.run(until: { !JournalingCoordinator.journal.isEmpty })
        try await arrival.value
        #expect(JournalingCoordinator.journal.map(\.name) == ["remote"])
        let bad = Task.detached { try await RouteRegistry.receive(json: Data("[]".utf8), on: loop) { _ in } }
        await #expect(throws: RouteError.self) { try await bad.value }
    }

    @Test func fuzzedAndMutatedRoutesNeverCrashAndOnlyThrowRouteErrors() {
        var generator = SystemRandomNumberGenerator()
        let valid = Array(
            #"{"coordinatorPath": {"id": "x", "items": [{"id": "journal", "present": "present", "presentationStyle": "sheet", "data": {"name": "a"}}]}}"#
                .utf8
        )
        let alphabet = Array(#"{}[]":,0123456789 -.truefalsnulxidtemspr\"#.utf8)
        var decoded = 0
        var rejected = 0
        for round in 0..<2_000 {
            var bytes: [UInt8]
            if round.isMultiple(of: 2) {
                bytes = valid
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let index = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: bytes[index] = alphabet.randomElement(using: &generator)!
                    case 1: bytes.remove(at: index)
                    default: bytes.insert(alphabet.randomElement(using: &generator)!, at: index)
                    }
                    if bytes.isEmpty { bytes = [UInt8(ascii: "{")] }
                }
            } else {
                bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator)!
                }
            }
            do {
                let route = try Route(json: Data(bytes))
                _ = try? registry.perform(route, from: nil, stack: stack, modal: modal)
                decoded += 1
            } catch {
                rejected += 1
            }
        }
        #expect(decoded + rejected == 2_000)
        #expect(rejected > 0)
    }

    /// Found by the route fuzzer: Foundation writes `-0e30` back as `-0` and reads `-0` as `0`, so the data of a route
    /// written out and read back used to differ from the original's.
    @Test func dataHoldingANegativeZeroRoundTrips() throws {
        let json =
            #"{"coordinatorPath": {"id": "x", "items": [{"id": "a", "present": "push", "data": {"at": "NaN", "ratio": "Infinity", "couEnt": -0e30, "list": [-0.0, 1]}}]}}"#
        let route = try Route(json: Data(json.utf8))
        let item = try #require(route.items.first)
        #expect(
            String(decoding: item.data.json, as: UTF8.self)
                == #"{"at":"NaN","couEnt":0,"list":[0,1],"ratio":"Infinity"}"#
        )
        let again = try Route(
            json: JSONSerialization.data(withJSONObject: [
                "coordinatorPath": [
                    "id": route.id,
                    "items": [
                        [
                            "id": item.id, "present": "push",
                            "data": try JSONSerialization.jsonObject(with: item.data.json),
                        ]
                    ],
                ]
            ])
        )
        #expect(again == route)
    }
}
