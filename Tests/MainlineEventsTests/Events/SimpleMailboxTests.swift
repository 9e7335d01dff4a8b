import MainlineEvents
import MainlineLoop
import MainlineTesting
import Testing

/// `SimpleMailbox`: the spec's table of what each call stores and when it triggers, including optional payloads.
@MainActor
@Suite("SimpleMailbox")
struct SimpleMailboxTests {
    /// A mailbox and a count of its event's deliveries; `settle()` steps the loop and returns the new deliveries.
    @MainActor final class Fixture<T> {
        let loop = TestLoop()
        let event: LazySimpleEvent
        let mailbox: SimpleMailbox<T>
        private var deliveries = 0
        private var seen = 0
        private var token: SimpleEventToken?

        init() {
            event = LazySimpleEvent(loop: loop)
            mailbox = SimpleMailbox(event: event)
            event.addObserver(&token) { [unowned self] _ in deliveries += 1 }
        }

        /// Whether the event fired since the last call.
        func triggered() -> Bool {
            loop.runUntilIdle()
            defer { seen = deliveries }
            return deliveries > seen
        }
    }

    @Test func aNewMailboxIsEmptyAndTakingFromItTriggersNothing() {
        let box = Fixture<Int>()
        #expect(!box.mailbox.hasValue)
        #expect(box.mailbox.value == nil)
        #expect(box.mailbox.take() == nil)
        #expect(!box.triggered())
    }

    @Test func takeReturnsTheValueClearsTheBoxAndTriggers() {
        let box = Fixture<Int>()
        box.mailbox.replace(1)
        #expect(box.triggered())
        #expect(box.mailbox.value == 1, "peeking leaves it")
        #expect(box.mailbox.hasValue)
        #expect(box.mailbox.take() == 1)
        #expect(!box.mailbox.hasValue)
        #expect(box.triggered())
    }

    @Test func replaceTriggersOnlyWhenTheValueDiffers() {
        let box = Fixture<String>()
        box.mailbox.replace("a")
        #expect(box.triggered())
        box.mailbox.replace("a")
        #expect(!box.triggered())
        #expect(box.mailbox.value == "a")
        box.mailbox.replace("b")
        #expect(box.triggered())
        #expect(box.mailbox.value == "b")
    }

    @Test func replaceEvenIfSameAlwaysStoresAndTriggers() {
        let box = Fixture<String>()
        box.mailbox.replaceEvenIfSame("a")
        #expect(box.triggered())
        box.mailbox.replaceEvenIfSame("a")
        #expect(box.triggered())
        #expect(box.mailbox.value == "a")
    }

    @Test func placeIfFitsStoresOnlyIntoAnEmptyBox() {
        let box = Fixture<String>()
        #expect(box.mailbox.placeIfFits("first"))
        #expect(box.triggered())
        #expect(!box.mailbox.placeIfFits("second"))
        #expect(!box.triggered())
        #expect(box.mailbox.value == "first")
        #expect(box.mailbox.take() == "first")
        _ = box.triggered()
        #expect(box.mailbox.placeIfFits("third"))
        #expect(box.mailbox.value == "third")
    }

    @Test func aStoredNilOfAnOptionalPayloadIsAValue() {
        let box = Fixture<Int?>()
        box.mailbox.replace(nil)
        #expect(box.triggered(), "empty → .some(nil) is a change")
        #expect(box.mailbox.hasValue)
        #expect(box.mailbox.value == .some(nil))
        box.mailbox.replace(nil)
        #expect(!box.triggered(), "nil → nil is not")
        #expect(!box.mailbox.placeIfFits(5), "a stored nil occupies the box")
        let taken = box.mailbox.take()
        #expect(taken == .some(nil))
        #expect(box.triggered(), "taking a stored nil triggers")
        #expect(!box.mailbox.hasValue)
        #expect(box.mailbox.placeIfFits(nil))
        #expect(box.mailbox.hasValue)
    }

    @Test func nonEquatablePayloadsHaveEveryCallButReplace() {
        struct Payload { var id: Int }
        let box = Fixture<Payload>()
        box.mailbox.replaceEvenIfSame(Payload(id: 1))
        #expect(box.mailbox.placeIfFits(Payload(id: 2)) == false)
        #expect(box.mailbox.take()?.id == 1)
        #expect(box.triggered())
    }
}
