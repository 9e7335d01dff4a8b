import MainlineLoop
import MainlineObservables
import MainlineTesting
import Testing

/// A value set from inside an observer (spec/observables-and-viewmodels.md, "Reentrancy"): Kaluga's collectors never
/// nest, so the round finishes and one more round delivers the latest value.
@MainActor
@Suite("Observables: values set during a round")
struct SubjectReentrancyTests {
    /// A subject whose first observer clamps values above 10 to 10, and two observers after it.
    private func clamped(_ seen: Seen<String>, loop: TestLoop) -> (InitializedSubject<Int>, [Disposable]) {
        let subject = subjectOf(0, loop: loop)
        let observations = [
            subject.observe { value in
                seen.add("clamp \(value)")
                if value > 10 { subject.value = 10 }
            },
            subject.observe { seen.add("second \($0)") },
            subject.observe { seen.add("third \($0)") },
        ]
        return (subject, observations)
    }

    // Shown in MainlineEvents' ObserverRules article.
    @Test func anObserverAfterTheSetterSeesTheRoundsValueThenTheNewOneInOneMoreRound() {
        let loop = TestLoop()
        let seen = Seen<Int>()
        let level = subjectOf(0, loop: loop)
        let clamp = level.observe { if $0 > 10 { level.value = 10 } }
        let show = level.observe { seen.add($0) }
        level.value = 15  // show sees 15, then 10: never 10 before 15
        #expect(seen.values == [0, 15, 10])
        clamp.dispose()
        show.dispose()
    }

    @Test func everyObserverAfterTheSetterSeesTheNewValueOnceAfterTheRound() {
        let seen = Seen<String>()
        let (subject, observations) = clamped(seen, loop: TestLoop())
        subject.value = 15
        #expect(
            seen.values.dropFirst(3) == ["clamp 15", "second 15", "third 15", "clamp 10", "second 10", "third 10"],
            "after the three current values that observing delivered"
        )
        observations.forEach { $0.dispose() }
    }

    @Test func anObserverThatSetsItsSubjectIsNotReentered() {
        let subject = subjectOf(0, loop: TestLoop())
        var inside = false
        var reentered = false
        let observation = subject.observe { value in
            if inside { reentered = true }
            inside = true
            if value == 1 { subject.value = 2 }
            inside = false
        }
        subject.value = 1
        #expect(!reentered)
        #expect(subject.value == 2)
        observation.dispose()
    }

    @Test func settingTheSubjectFromItsObserverIsNotReportedAsMisuse() {
        let seen = Seen<String>()
        let (subject, observations) = clamped(seen, loop: TestLoop())
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record { subject.value = 15 }
        #expect(diagnostics.kinds.isEmpty)
        observations.forEach { $0.dispose() }
    }

    @Test func valuesSetSeveralTimesInOneRoundReachTheObserversAsTheLatestOnly() {
        let subject = subjectOf(0, loop: TestLoop())
        let seen = Seen<Int>()
        let setter = subject.observe { value in
            guard value == 1 else { return }
            subject.value = 11
            subject.value = 12
        }
        let watcher = subject.observe { seen.add($0) }
        subject.value = 1
        #expect(seen.values == [0, 1, 12])
        setter.dispose()
        watcher.dispose()
    }

    @Test func noMoreRoundRunsWhenTheValueIsBackToTheRoundsOwn() {
        let subject = subjectOf(0, loop: TestLoop())
        let seen = Seen<Int>()
        var bounced = false
        let setter = subject.observe { value in
            guard value == 15, !bounced else { return }
            bounced = true
            subject.value = 20
            subject.value = 15
        }
        let watcher = subject.observe { seen.add($0) }
        subject.value = 15
        #expect(seen.values == [0, 15], "15 again would be a repeated value")
        setter.dispose()
        watcher.dispose()
    }
}
