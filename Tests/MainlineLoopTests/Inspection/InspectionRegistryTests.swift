import MainlineInspectorSchema
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// `_InspectionRegistry`: weak, bounded, and empty of everything but loops until an inspector starts.
@Suite("_InspectionRegistry")
struct InspectionRegistryTests {
    @Test func anInactiveRegistryRegistersLoopsAndNothingElse() {
        let registry = _InspectionRegistry()
        let fixtures = _InspectionRegistry.Category.allCases.map { category in
            (category, InspectedFixture(category.rawValue).register(in: registry, category))
        }
        #expect(!registry.isActive)
        for (category, _) in fixtures {
            #expect(registry.entryCount(category) == (category == .loops ? 1 : 0), "\(category)")
        }
        #expect(registry.describe(.loops, as: String.self) == ["loops"])
        #expect(registry.describe(.mailboxes, as: String.self) == [])
    }

    @Test func anActiveRegistryRegistersEveryCategoryAndDescribesInRegistrationOrder() {
        let registry = _InspectionRegistry()
        registry.activate()
        registry.activate()  // idempotent
        #expect(registry.isActive)
        let fixtures = (1...5).map { InspectedFixture($0).register(in: registry, .viewModels) }
        #expect(registry.describe(.viewModels, as: Int.self) == Array(1...5))
        #expect(registry.describe(.coordinators, as: Int.self) == [])
        withExtendedLifetime(fixtures) {}
    }

    @Test func theRecorderDetailReachesTheDescribers() {
        let registry = _InspectionRegistry()
        let recording = LoopRecording(name: "main", kind: "MainLoop", state: "idle", capacityBytes: 1_024, events: [])
        let loop = InspectedFixture("summary", recorder: recording).register(in: registry, .loops)
        #expect(registry.describe(.loops, as: String.self) == ["summary"])
        #expect(registry.describe(.loops, as: LoopRecording.self, detail: .recorder) == [recording])
        withExtendedLifetime(loop) {}
    }

    @Test func anObjectThatIsGoneIsNoLongerDescribedAndTheRegistryDoesNotKeepItAlive() {
        let registry = _InspectionRegistry()
        registry.activate()
        var mailbox: InspectedFixture? = InspectedFixture("jobs").register(in: registry, .mailboxes)
        weak let gone = mailbox
        let kept = InspectedFixture("kept").register(in: registry, .mailboxes)
        #expect(registry.describe(.mailboxes, as: String.self) == ["jobs", "kept"])

        mailbox = nil

        #expect(gone == nil, "the registry holds it weakly")
        #expect(registry.describe(.mailboxes, as: String.self) == ["kept"])
        withExtendedLifetime(kept) {}
    }

    @Test func pruningKeepsAListWithinTwiceItsLiveEntries() {
        let registry = _InspectionRegistry()
        registry.activate()
        let live = (0..<10).map { InspectedFixture($0).register(in: registry, .mailboxes) }
        var largest = 0
        for index in 0..<10_000 {
            // Made and dropped: each lives only until the next.
            _ = InspectedFixture(100 + index).register(in: registry, .mailboxes)
            largest = max(largest, registry.entryCount(.mailboxes))
        }
        #expect(largest <= 2 * (live.count + 1) + 16, "the list grew to \(largest) entries for \(live.count) live ones")
        #expect(registry.describe(.mailboxes, as: Int.self) == Array(0..<10))
    }

    @Test func aDescriberThatRegistersDoesNotDeadlock() {
        let registry = _InspectionRegistry()
        registry.activate()
        final class Registering: Sendable {}
        let owner = Registering()
        let inner = InspectedFixture("inner")
        registry.register(owner, in: .coordinators) { _ -> String? in
            inner.register(in: registry, .mailboxes)
            return "outer"
        }
        #expect(registry.describe(.coordinators, as: String.self) == ["outer"])
        #expect(registry.describe(.mailboxes, as: String.self) == ["inner"])
    }

    @Test func identifiersAreUniqueAndIncreasing() {
        let registry = _InspectionRegistry()
        let ids = (0..<100).map { _ in registry.makeID() }
        #expect(ids == Array(1...100))
    }
}
