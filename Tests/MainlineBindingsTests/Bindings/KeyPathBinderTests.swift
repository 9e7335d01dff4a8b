import Foundation
import MainlineBindings
import MainlineLoop
import MainlineTesting
import Observation
import Testing

@MainActor @Observable
final class Profile {
    var name: String
    var unread = 0

    init(name: String) { self.name = name }
}

@MainActor
final class HeaderViewModel {
    var titles: [String] = []
    var badges: [Int] = []
}

/// A model changed from another thread: its property is behind a lock; Observation tells the binder about writes.
@Observable
final class Thermometer: @unchecked Sendable {
    // @unchecked Sendable: the only stored state, `storage`, is a lock-protected `_Locked`.
    @ObservationIgnored private let storage = _Locked(0.0)

    var celsius: Double {
        get {
            access(keyPath: \.celsius)
            return storage.withLock { $0 }
        }
        set {
            withMutation(keyPath: \.celsius) { storage.withLock { $0 = newValue } }
        }
    }
}

/// `KeyPathBinder`: the action at bind time and once per iteration after changes, weak observers, misuse
/// (spec/coordinators-and-bindings.md, "Key-path bindings").
@MainActor
@Suite("KeyPathBinder")
struct KeyPathBinderTests {
    @Test func theActionRunsAtBindTimeWithTheCurrentValue() {
        let loop = TestLoop()
        let binder = KeyPathBinder(loop: loop)
        let profile = Profile(name: "Ada")
        let header = HeaderViewModel()
        #expect(binder.bind(profile, \.name, to: header) { $0.titles.append($1) })
        #expect(header.titles == ["Ada"])
        loop.runUntilIdle()
        #expect(header.titles == ["Ada"], "nothing changed: no second call")
    }

    @Test func manyChangesInOneIterationRunTheActionOnceInSettle() {
        let loop = TestLoop()
        let binder = KeyPathBinder(loop: loop)
        let profile = Profile(name: "Ada")
        let header = HeaderViewModel()
        binder.bind(profile, \.name, to: header) { $0.titles.append($1) }
        loop.post {
            profile.name = "Grace"
            profile.name = "Lin"
            profile.name = "Barbara"
            #expect(header.titles == ["Ada"], "never synchronous")
        }
        loop.runIteration()
        #expect(header.titles == ["Ada", "Barbara"])
        loop.post { profile.name = "Frances" }
        loop.runIteration()
        #expect(header.titles == ["Ada", "Barbara", "Frances"], "tracking is re-armed after each delivery")
        loop.runUntilIdle()
        #expect(header.titles.count == 3)
        #expect(!loop.hasPendingWork)
    }

    @Test func aChangeOfAnotherPropertyDoesNotRunTheAction() {
        let loop = TestLoop()
        let binder = KeyPathBinder(loop: loop)
        let profile = Profile(name: "Ada")
        let header = HeaderViewModel()
        binder.bind(profile, \.name, to: header) { $0.titles.append($1) }
        profile.unread = 3
        loop.runUntilIdle()
        #expect(header.titles == ["Ada"])
    }

    @Test func aFreedObserverIsNeverCalledAndItsBindingGoesAway() {
        let loop = TestLoop()
        let binder = KeyPathBinder(loop: loop)
        let profile = Profile(name: "Ada")
        var calls = 0
        do {
            let header = HeaderViewModel()
            binder.bind(profile, \.name, to: header) { _, _ in calls += 1 }
        }
        #expect(calls == 1)
        profile.name = "Grace"
        loop.runUntilIdle()
        #expect(calls == 1)
        #expect(binder.count == 0)
    }

    @Test func unbindStopsTheActions() {
        let loop = TestLoop()
        let binder = KeyPathBinder(loop: loop)
        let profile = Profile(name: "Ada")
        let header = HeaderViewModel()
        binder.bind(profile, \.name, to: header) { $0.titles.append($1) }
        binder.bind(profile, \.unread, to: header) { $0.badges.append($1) }
        profile.name = "Grace"
        #expect(binder.unbind(profile, \.name, from: header))
        #expect(!binder.unbind(profile, \.name, from: header), "already gone")
        profile.unread = 2
        loop.runUntilIdle()
        #expect(header.titles == ["Ada"], "unbound before settle: the pending change is withdrawn")
        #expect(header.badges == [0, 2])
        binder.unbindAll(from: profile)
        profile.unread = 5
        loop.runUntilIdle()
        #expect(header.badges == [0, 2])
        #expect(binder.count == 0)
    }

    @Test func bindingTheSameTripleTwiceIsReportedAndIgnored() {
        let loop = TestLoop()
        let binder = KeyPathBinder(loop: loop)
        let profile = Profile(name: "Ada")
        let header = HeaderViewModel()
        let diagnostics = DiagnosticsRecorder()
        binder.bind(profile, \.name, to: header) { $0.titles.append($1) }
        let second = diagnostics.record { binder.bind(profile, \.name, to: header) { $0.titles.append($1) } }
        #expect(!second)
        #expect(diagnostics.kinds == [.bindingAddedTwice])
        profile.name = "Grace"
        loop.runUntilIdle()
        #expect(header.titles == ["Ada", "Grace"], "one binding, called once per change")
    }

    @Test func anActionThatChangesItsOwnKeyPathRunsOnceMoreLater() {
        let loop = TestLoop()
        let binder = KeyPathBinder(loop: loop)
        let profile = Profile(name: "ada")
        let header = HeaderViewModel()
        binder.bind(profile, \.name, to: header) { header, name in
            header.titles.append(name)
            if name != name.capitalized { profile.name = name.capitalized }
        }
        loop.runUntilIdle()
        #expect(header.titles == ["ada", "Ada"])
    }

    @Test func aChangeMadeOnAnotherThreadRunsTheActionOnTheLoop() async {
        let loop = TestLoop()
        let binder = KeyPathBinder(loop: loop)
        let thermometer = Thermometer()
        let header = HeaderViewModel()
        binder.bind(thermometer, \.celsius, to: header) { header, celsius in
            MainActor.assertIsolated()
            header.badges.append(Int(celsius))
        }
        await Task.detached {
            for reading in 1...50 { thermometer.celsius = Double(reading) }
        }.value
        #expect(header.badges == [0], "nothing runs until the loop steps")
        await loop.runUntilIdle()
        #expect(header.badges == [0, 50], "fifty changes, one action, with the last value")
    }
}
