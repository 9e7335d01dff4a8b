import MainlineEvents
import MainlineLoop
import MainlineTesting
import Testing

/// `SimpleEvent` and its tokens: synchronous delivery, both token forms, the delegate form, nested coalescing and
/// nested notifications (spec/events.md).
@MainActor
@Suite("SimpleEvent")
struct SimpleEventTests {
    @Test func triggerNotifiesSynchronouslyAndPassesTheEventItself() {
        let event = SimpleEvent()
        var received: [SimpleEventObservable] = []
        var token: SimpleEventToken?
        event.addObserver(&token) { received.append($0) }
        event.trigger()
        #expect(received.count == 1)
        #expect(received.first === event)
        event.trigger(if: false)
        #expect(received.count == 1, "trigger(if: false) notifies nobody")
        _ = token
    }

    @Test func reassigningTheTokenVariableDropsTheOldSubscription() {
        let event = SimpleEvent()
        let log = Log()
        var token: SimpleEventToken?
        event.addObserver(&token) { _ in log.add("first") }
        event.addObserver(&token) { _ in log.add("second") }
        event.trigger()
        #expect(log.entries == ["second"])
        _ = token
    }

    @Test func theReturningFormAssignsEvenThroughANilOptional() {
        let event = SimpleEvent()
        let log = Log()
        var token = event.addObserver { _ in log.add("old") }
        let missing: SimpleEvent? = nil
        token = missing?.addObserver { _ in log.add("never") }
        event.trigger()
        #expect(log.entries.isEmpty, "assigning nil released the old token")
        #expect(token == nil)
    }

    @Test func removingATokenTwiceIsHarmlessAndDroppingItsHolderRemovesTheObserver() {
        final class Holder {
            var token: SimpleEventToken?
        }
        let event = SimpleEvent()
        let log = Log()
        let token = event.addObserver { _ in log.add("a") }
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            token?.remove()
            token?.remove()
        }
        #expect(diagnostics.kinds.isEmpty)
        var holder: Holder? = Holder()
        event.addObserver(&holder!.token) { _ in log.add("held") }
        event.trigger()
        #expect(log.entries == ["held"])
        holder = nil
        event.trigger()
        #expect(log.entries == ["held"], "the holder's token went with it")
    }

    @Test func aTokenMayOutliveItsEvent() {
        var event: SimpleEvent? = SimpleEvent()
        weak let weakEvent = event
        var token: SimpleEventToken?
        event!.addObserver(&token) { _ in }
        event = nil
        #expect(weakEvent == nil, "a token does not keep the event alive")
        token?.remove()
        token = nil
    }

    @Test func droppingATokenDuringARoundStopsItsDeliveryInThatRound() {
        let event = SimpleEvent()
        let log = Log()
        var first: SimpleEventToken?
        var second: SimpleEventToken?
        event.addObserver(&first) { _ in
            log.add("first")
            second = nil
        }
        event.addObserver(&second) { _ in log.add("second") }
        event.trigger()
        #expect(log.entries == ["first"])
        _ = first
    }

    @Test func delegateObserversAreCalledInInsertionOrderWithTokenObservers() {
        let event = SimpleEvent()
        let log = Log()
        let delegate = NamedObserver("delegate", log: log)
        var token: SimpleEventToken?
        event.addObserver(&token) { _ in log.add("token") }
        event.addObserver(delegate)
        event.trigger()
        #expect(log.entries == ["token", "delegate"])
        event.removeObserver(delegate)
        event.trigger()
        #expect(log.entries == ["token", "delegate", "token"])
        _ = token
    }

    @Test func aDelegateDeallocatedWithoutRemovalIsReportedAtTheNextTriggerAndDropped() {
        let event = SimpleEvent()
        let log = Log()
        let survivor = NamedObserver("survivor", log: log)
        event.addObserver(survivor)
        do { event.addObserver(NamedObserver("leaked", log: log)) }
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record { event.trigger() }
        #expect(diagnostics.kinds == [.observerNotRemoved])
        #expect(log.entries == ["survivor"])
        diagnostics.reset()
        diagnostics.record { event.trigger() }
        #expect(diagnostics.kinds.isEmpty, "reported once, then dropped")
        #expect(log.entries == ["survivor", "survivor"])
        event.removeObserver(survivor)
    }

    @Test func delegateMisuseIsReported() {
        let event = SimpleEvent()
        let log = Log()
        let delegate = NamedObserver("d", log: log)
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            event.addObserver(delegate)
            event.addObserver(delegate)
            event.trigger()
            event.removeObserver(delegate)
            event.removeObserver(delegate)
            event.removeObserver(delegate)
        }
        #expect(diagnostics.kinds == [.observerAddedTwice, .observerNotAdded])
        #expect(log.entries == ["d", "d"], "added twice: called twice, as upstream's release builds")
    }

    @Test func coalescingBlocksNestAndNotifyOnceAtTheEndOfTheOutermost() {
        let event = SimpleEvent()
        let log = Log()
        var token: SimpleEventToken?
        event.addObserver(&token) { _ in log.add("notified") }
        event.coalescingNotifications {
            event.trigger()
            event.coalescingNotifications {
                event.trigger()
                event.trigger(if: false)
            }
            #expect(log.entries.isEmpty, "the inner block's end does not notify")
            event.trigger(if: false)
            #expect(log.entries.isEmpty)
        }
        #expect(log.entries == ["notified"], "trigger(if: false) never clears a pending trigger")
        event.coalescingNotifications { event.trigger(if: false) }
        #expect(log.entries == ["notified"], "nothing triggered: nothing notified")
        _ = token
    }

    @Test func aCoalescingBlockThatThrowsStillNotifies() {
        struct Failure: Error {}
        let event = SimpleEvent()
        let log = Log()
        var token: SimpleEventToken?
        event.addObserver(&token) { _ in log.add("notified") }
        #expect(throws: Failure.self) {
            try event.coalescingNotifications {
                event.trigger()
                throw Failure()
            }
        }
        #expect(log.entries == ["notified"])
        _ = token
    }

    @Test func triggeringFromItsOwnObserverIsANestedNotificationRunDepthFirst() {
        let event = SimpleEvent()
        let log = Log()
        var first: SimpleEventToken?
        var second: SimpleEventToken?
        var depth = 0
        event.addObserver(&first) { event in
            log.add("first")
            depth += 1
            if depth == 1 { (event as! SimpleEvent).trigger() }
        }
        event.addObserver(&second) { _ in log.add("second") }
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record { event.trigger() }
        #expect(diagnostics.kinds == [.nestedNotification])
        #expect(log.entries == ["first", "first", "second", "second"])
        _ = (first, second)
    }
}
