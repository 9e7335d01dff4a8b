import MainlineEvents
import MainlineInspectorSchema
import MainlineLoop
import MainlineTesting
import Testing

/// What the thread-safe mailboxes show an inspector: registered at init once an inspector has started, described from
/// any thread under their own locks, gone with them — and not registered at all in a process that never started one.
@MainActor
@Suite("Mailboxes under an inspector")
struct MailboxInspectionTests {
    /// The shared registry's description of the mailbox named `name` (tests in this process make many mailboxes).
    nonisolated static func described(_ name: String) -> [MailboxSummary] {
        _InspectionRegistry.shared.describe(.mailboxes, as: MailboxSummary.self).filter { $0.name == name }
    }

    @Test func aBoundedMailboxShowsItsDepthCapacityPolicyAndDrops() async {
        _InspectionRegistry.shared.activate()
        let loop = TestLoop()
        let name = "bounded-\(UInt64.random(in: 0...UInt64.max))"
        let mailbox = BoundedMailbox<Int>(capacity: 3, overflow: .dropOldest, loop: loop, name: name)
        for value in 1...5 { mailbox.place(value) }

        // Read on another thread, as the inspector's thread reads it.
        let described = await Task.detached { Self.described(name) }.value

        #expect(
            described == [
                MailboxSummary(
                    name: name,
                    kind: "bounded",
                    depth: 3,
                    capacity: 3,
                    dropped: 2,
                    coalesced: 0,
                    accepted: 5,
                    rejected: 0,
                    delivered: 0,
                    waiting: 0,
                    overflow: "dropOldest"
                )
            ]
        )
        _ = mailbox.takeAll()
        #expect(Self.described(name).first?.depth == 0)
        #expect(Self.described(name).first?.delivered == 3)
    }

    @Test func latestAndKeyedMailboxesCountReplacedValuesAsCoalesced() {
        _InspectionRegistry.shared.activate()
        let loop = TestLoop()
        let suffix = UInt64.random(in: 0...UInt64.max)
        let latest = LatestMailbox<Int>(loop: loop, name: "latest-\(suffix)")
        let keyed = KeyedMailbox<String, Int>(loop: loop, name: "keyed-\(suffix)")
        for value in 1...4 { latest.place(value) }
        for key in ["a", "b", "a", "a"] { keyed.place(key: key, value: 1) }

        let latestDescription = Self.described("latest-\(suffix)").first
        #expect(latestDescription?.kind == "latest")
        #expect(latestDescription?.depth == 1)
        #expect(latestDescription?.capacity == 1)
        #expect(latestDescription?.dropped == 3)
        #expect(latestDescription?.coalesced == 3)
        #expect(latestDescription?.overflow == nil)

        let keyedDescription = Self.described("keyed-\(suffix)").first
        #expect(keyedDescription?.kind == "keyed")
        #expect(keyedDescription?.depth == 2)
        #expect(keyedDescription?.capacity == nil, "unbounded")
        #expect(keyedDescription?.dropped == 2)
        #expect(keyedDescription?.coalesced == 2)
    }

    @Test func anUnnamedMailboxShowsANullName() {
        _InspectionRegistry.shared.activate()
        let mailbox = LatestMailbox<Int>(loop: TestLoop())
        mailbox.place(1)
        let unnamed = _InspectionRegistry.shared.describe(.mailboxes, as: MailboxSummary.self).filter { $0.name == nil }
        #expect(!unnamed.isEmpty)
        #expect(unnamed.allSatisfy { $0.kind != nil })
    }

    @Test func aMailboxThatIsGoneIsNoLongerShown() {
        _InspectionRegistry.shared.activate()
        let name = "gone-\(UInt64.random(in: 0...UInt64.max))"
        var mailbox: KeyedMailbox<Int, Int>? = KeyedMailbox(loop: TestLoop(), name: name)
        #expect(Self.described(name).count == 1)
        mailbox = nil
        #expect(mailbox == nil)
        #expect(Self.described(name).isEmpty)
    }

    @Test func inAProcessThatNeverStartedAnInspectorMailboxesRegisterNothing() async {
        await #expect(processExitsWith: .success) {
            await MainActor.run {
                let loop = TestLoop()
                let mailboxes: [AnyObject] = [
                    BoundedMailbox<Int>(capacity: 2, overflow: .reject, loop: loop, name: "a"),
                    LatestMailbox<Int>(loop: loop, name: "b"), KeyedMailbox<Int, Int>(loop: loop, name: "c"),
                ]
                let registry = _InspectionRegistry.shared
                precondition(!registry.isActive && mailboxes.count == 3)
                precondition(registry.entryCount(.mailboxes) == 0, "a mailbox registered with no inspector started")
            }
        }
    }
}
