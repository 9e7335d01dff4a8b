import Testing

@testable import MainlineLoop

@Suite("ScheduledTask layout")
struct ScheduledTaskLayoutTests {
    /// `ScheduledTask.Body` as it was before timers kept their labels.
    private enum UnlabelledBody {
        case once(@MainActor () -> Void)
        case repeating(@MainActor (ScheduledTask) -> Void)
    }

    @Test func aTimersLabelCostsUnlabelledTimersNoBytes() {
        // Every task stores a `Body?`: the indirect `labelled` case keeps it as wide as a body without labels.
        #expect(MemoryLayout<ScheduledTask.Body?>.size == MemoryLayout<UnlabelledBody?>.size)
        #expect(MemoryLayout<ScheduledTask.Body?>.stride == MemoryLayout<UnlabelledBody?>.stride)
    }

    @MainActor @Test func aLabelIsReadableWhileTheTaskIsScheduledAndGoneOnceItFired() {
        let core = _LoopCore(loopName: "ScheduledTaskTests")
        let labelled = core.schedule(after: .seconds(1), now: .zero, label: "refresh") {}
        let unlabelled = core.schedule(after: .seconds(1), now: .zero) {}
        #expect(labelled.label.map { "\($0)" } == "refresh")
        #expect(unlabelled.label == nil)
        core.runDueTimers(now: .zero + .seconds(1))
        #expect(labelled.label == nil)
        #expect(labelled.firings == 1)
    }
}
