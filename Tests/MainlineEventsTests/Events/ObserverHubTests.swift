import MainlineEvents
import MainlineLoop
import MainlineTesting
import Testing

// Not class-bound, as upstream allows, so that adding a value type compiles and can be reported.
@MainActor protocol Listener {
    func heard(_ word: String)
}

/// `ObserverHub`: weak observers, insertion order, rounds over a copy, and every misuse case (spec/events.md).
@MainActor
@Suite("ObserverHub")
struct ObserverHubTests {
    final class Recorder: Listener {
        let name: String
        let log: Log
        var onHeard: (@MainActor () -> Void)?

        init(_ name: String, _ log: Log) {
            self.name = name
            self.log = log
        }

        func heard(_ word: String) {
            log.add("\(name):\(word)")
            onHeard?()
        }
    }

    struct ValueListener: Listener {
        func heard(_ word: String) {}
    }

    @Test func observersAreNotifiedInInsertionOrder() {
        let log = Log()
        let hub = ObserverHub<Listener>()
        let a = Recorder("a", log)
        let b = Recorder("b", log)
        let c = Recorder("c", log)
        #expect(hub.isEmpty)
        for observer in [b, a, c] { hub.add(observer) }
        #expect(!hub.isEmpty)
        hub.forEach { $0.heard("x") }
        #expect(log.entries == ["b:x", "a:x", "c:x"])
        for observer in [a, b, c] { hub.remove(observer) }
        #expect(hub.isEmpty)
    }

    @Test func anObserverRemovedDuringARoundIsNotCalledInThatRound() {
        let log = Log()
        let hub = ObserverHub<Listener>()
        let a = Recorder("a", log)
        let b = Recorder("b", log)
        a.onHeard = { hub.remove(b) }
        hub.add(a)
        hub.add(b)
        hub.forEach { $0.heard("x") }
        #expect(log.entries == ["a:x"])
        hub.remove(a)
    }

    @Test func anObserverAddedDuringARoundIsFirstCalledInTheNext() {
        let log = Log()
        let hub = ObserverHub<Listener>()
        let a = Recorder("a", log)
        let late = Recorder("late", log)
        a.onHeard = {
            hub.add(late)
            a.onHeard = nil
        }
        hub.add(a)
        hub.forEach { $0.heard("1") }
        hub.forEach { $0.heard("2") }
        #expect(log.entries == ["a:1", "a:2", "late:2"])
        hub.remove(a)
        hub.remove(late)
    }

    @Test func observersAreHeldWeakly() {
        let log = Log()
        let hub = ObserverHub<Listener>()
        weak var gone: Recorder?
        do {
            let temporary = Recorder("t", log)
            gone = temporary
            hub.add(temporary)
            hub.remove(temporary)
        }
        #expect(gone == nil, "the hub must not keep its observers alive")
    }

    @Test func addingAValueTypeIsReportedAndTheValueIsNeverCalled() {
        let hub = ObserverHub<Listener>()
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record { hub.add(ValueListener()) }
        #expect(diagnostics.kinds == [.observerIsValue])
        var calls = 0
        hub.forEach { _ in calls += 1 }
        #expect(calls == 0)
        #expect(hub.isEmpty)
    }

    @Test func addingTheSameObserverTwiceIsReportedAndItIsCalledTwice() {
        let log = Log()
        let hub = ObserverHub<Listener>()
        let a = Recorder("a", log)
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            hub.add(a)
            hub.add(a)
        }
        #expect(diagnostics.kinds == [.observerAddedTwice])
        hub.forEach { $0.heard("x") }
        #expect(log.entries == ["a:x", "a:x"])
        hub.remove(a)
        hub.remove(a)
        #expect(hub.isEmpty)
    }

    @Test func removingAnObserverNeverAddedIsReportedAndIgnored() {
        let log = Log()
        let hub = ObserverHub<Listener>()
        let a = Recorder("a", log)
        let stranger = Recorder("s", log)
        hub.add(a)
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            hub.remove(stranger)
            hub.remove(a)
            hub.remove(a)
        }
        #expect(diagnostics.kinds == [.observerNotAdded, .observerNotAdded], "a stranger, then a second removal")
        #expect(hub.isEmpty)
    }

    @Test func anObserverDeallocatedWithoutRemovalIsReportedAtTheNextRoundAndCleanedUp() {
        let log = Log()
        let hub = ObserverHub<Listener>()
        let survivor = Recorder("survivor", log)
        hub.add(survivor)
        do { hub.add(Recorder("leaked", log)) }
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record { hub.forEach { $0.heard("x") } }
        #expect(diagnostics.kinds == [.observerNotRemoved])
        #expect(diagnostics.diagnostics.first?.message.contains("Recorder") == true, "names the observer's type")
        #expect(log.entries == ["survivor:x"])
        diagnostics.reset()
        diagnostics.record { hub.forEach { $0.heard("y") } }
        #expect(diagnostics.kinds.isEmpty, "reported once, then dropped")
        hub.remove(survivor)
    }

    @Test func anObserverDeallocatedWithoutRemovalIsFoundByTheNextAddOrRemove() {
        let log = Log()
        let hub = ObserverHub<Listener>()
        let diagnostics = DiagnosticsRecorder()
        do { hub.add(Recorder("leaked", log)) }
        let other = Recorder("other", log)
        diagnostics.record { hub.add(other) }
        #expect(diagnostics.kinds == [.observerNotRemoved])
        do { hub.add(Recorder("leaked again", log)) }
        diagnostics.reset()
        diagnostics.record { hub.remove(other) }
        #expect(diagnostics.kinds == [.observerNotRemoved])
        #expect(hub.isEmpty)
    }

    @Test func anObserverRemovingItselfFromItsDeinitIsAcceptedSilently() {
        final class SelfRemoving: Listener {
            let hub: ObserverHub<Listener>
            init(_ hub: ObserverHub<Listener>) {
                self.hub = hub
                hub.add(self)
            }
            func heard(_ word: String) {}
            isolated deinit { hub.remove(self) }
        }
        let hub = ObserverHub<Listener>()
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            do { _ = SelfRemoving(hub) }
            hub.forEach { $0.heard("x") }
        }
        #expect(diagnostics.kinds.isEmpty)
        #expect(hub.isEmpty)
    }

    @Test func aNestedRoundIsReportedAndRunsDepthFirst() {
        let log = Log()
        let hub = ObserverHub<Listener>()
        let a = Recorder("a", log)
        let b = Recorder("b", log)
        a.onHeard = {
            a.onHeard = nil
            hub.forEach { $0.heard("inner") }
        }
        hub.add(a)
        hub.add(b)
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record { hub.forEach { $0.heard("outer") } }
        #expect(diagnostics.kinds == [.nestedNotification])
        #expect(log.entries == ["a:outer", "a:inner", "b:inner", "b:outer"])
        hub.remove(a)
        hub.remove(b)
    }
}
