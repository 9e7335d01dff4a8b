import MainlineInspectorSchema

@testable import MainlineLoop
@testable import MainlineLoopCore

/// Something registered with an inspection registry in a test, standing in for a loop, a mailbox, a view model or a
/// coordinator: it describes itself as `summary` (and, asked for the recorder, as `recorder`) while it lives.
///
/// All operations on `InspectedFixture` are thread-safe.
final class InspectedFixture<Summary: Sendable & Equatable>: Sendable {
    let summary: Summary
    let recorder: LoopRecording?

    init(_ summary: Summary, recorder: LoopRecording? = nil) {
        self.summary = summary
        self.recorder = recorder
    }

    /// Registers itself in `category` of `registry`, weakly, as the package's objects do.
    @discardableResult
    func register(in registry: _InspectionRegistry, _ category: _InspectionRegistry.Category) -> Self {
        registry.register(self, in: category) { [weak self] detail -> (any Sendable)? in
            guard let self else { return nil }
            if detail == .recorder, let recorder { return recorder }
            return summary
        }
        return self
    }
}

extension InspectedFixture where Summary == LoopSummary {
    /// A loop as the loop describers describe one (summary), with every field the console shows.
    static func loop(name: String, iterations: Int = 1_000) -> InspectedFixture<LoopSummary> {
        var summary = LoopSummary(name: name, kind: "MainLoop", state: "running")
        summary.iterations = iterations
        summary.busyPercent = 12.5
        summary.postsRun = 300
        summary.postsPending = 2
        summary.timersFired = 40
        summary.settleDeliveries = 7
        summary.delay = LoopSummary.Delay(
            p50Ms: 0.02,
            p99Ms: 1.2,
            maxMs: 3.1,
            samples: 200,
            buckets: [
                LoopSummary.Bucket(upToMs: 0.016, count: 150), LoopSummary.Bucket(upToMs: 1.024, count: 45),
                LoopSummary.Bucket(upToMs: 4.096, count: 5),
            ]
        )
        summary.running = LoopSummary.Running(site: "App/Workers.swift:42", label: nil, forMs: 12)
        summary.stalls = [
            LoopSummary.Stall(
                site: "App/Stall.swift:7",
                label: "stall on purpose",
                kind: "callback",
                durationMs: 1_250,
                ended: true,
                totalMs: 1_300,
                ageMs: 3_000,
                backtrace: ["#0 holdTheLoopOnPurpose", "#1 main"],
                lastEvents: [RecorderEvent(atMs: 10, ageMs: 2_990, kind: "wakeUp")]
            )
        ]
        summary.slowest = [
            LoopSummary.SlowJob(site: "App/File.swift:12", label: "fetch", kind: "post", durationMs: 3.2, ageMs: 100),
            LoopSummary.SlowJob(site: "App/File.swift:12", label: "fetch", kind: "post", durationMs: 5.5, ageMs: 50),
        ]
        summary.timers = [LoopSummary.Timer(site: "App/Tick.swift:3", label: "tick", dueInMs: 250, repeating: true)]
        summary.recorder = LoopSummary.Recorder(capacityBytes: 262_144, events: 1_234)
        var slowJob = RecorderEvent(atMs: 2, ageMs: 1, kind: "slowJob")
        slowJob.site = "App/File.swift:12"
        slowJob.jobKind = "post"
        slowJob.durationMs = 3.2
        let recorder = LoopRecording(
            name: name,
            kind: "MainLoop",
            state: "running",
            capacityBytes: 262_144,
            events: [RecorderEvent(atMs: 1, ageMs: 2, kind: "wakeUp"), slowJob]
        )
        return InspectedFixture(summary, recorder: recorder)
    }
}

extension _InspectionRegistry.Category {
    /// The categories the package's upper layers register into, named as they name them, for registries of the tests'
    /// own (this target does not link those layers).
    static let mailboxes = Self("mailboxes")
    static let viewModels = Self("viewModels")
    static let coordinators = Self("coordinators")
    /// Every list of the inspector's snapshot.
    static let allCases: [Self] = [.loops, .mailboxes, .viewModels, .coordinators]
}
