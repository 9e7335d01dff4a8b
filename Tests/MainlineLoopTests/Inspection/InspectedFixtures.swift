@testable import MainlineLoop
@testable import MainlineLoopCore

/// Something registered with an inspection registry in a test, standing in for a loop, a mailbox, a view model or a
/// coordinator: it describes itself as `summary` (and, asked for the recorder, as `recorder`) while it lives.
///
/// All operations on `InspectedFixture` are thread-safe.
final class InspectedFixture: Sendable {
    let summary: _InspectionValue
    let recorder: _InspectionValue?

    init(_ summary: _InspectionValue, recorder: _InspectionValue? = nil) {
        self.summary = summary
        self.recorder = recorder
    }

    /// Registers itself in `category` of `registry`, weakly, as the package's objects do.
    @discardableResult
    func register(in registry: _InspectionRegistry, _ category: _InspectionRegistry.Category) -> Self {
        registry.register(self, in: category) { [weak self] detail in
            guard let self else { return nil }
            return detail == .recorder ? (recorder ?? summary) : summary
        }
        return self
    }

    /// A loop as the loop describers of issue 27 describe one (summary), with every field the console shows.
    static func loop(name: String, iterations: Int = 1_000) -> InspectedFixture {
        InspectedFixture(
            .object([
                ("name", .string(name)), ("kind", .string("MainLoop")), ("state", .string("running")),
                ("iterations", .int(iterations)), ("busyPercent", .double(12.5)), ("postsRun", .int(300)),
                ("postsPending", .int(2)), ("timersFired", .int(40)), ("settleDeliveries", .int(7)),
                (
                    "delay",
                    .object([
                        ("p50Ms", .double(0.02)), ("p99Ms", .double(1.2)), ("maxMs", .double(3.1)),
                        ("samples", .int(200)),
                        (
                            "buckets",
                            .array([
                                .object([("upToMs", .double(0.016)), ("count", .int(150))]),
                                .object([("upToMs", .double(1.024)), ("count", .int(45))]),
                                .object([("upToMs", .double(4.096)), ("count", .int(5))]),
                            ])
                        ),
                    ])
                ),
                (
                    "running",
                    .object([("site", .string("App/Workers.swift:42")), ("label", .null), ("forMs", .double(12))])
                ),
                (
                    "stalls",
                    .array([
                        .object([
                            ("site", .string("App/Stall.swift:7")), ("label", .string("stall on purpose")),
                            ("kind", .string("callback")), ("durationMs", .double(1_250)), ("ageMs", .double(3_000)),
                            ("backtrace", .array([.string("#0 holdTheLoopOnPurpose"), .string("#1 main")])),
                            (
                                "lastEvents",
                                .array([.object([("atMs", .double(10)), ("kind", .string("wakeUp"))])])
                            ),
                        ])
                    ])
                ),
                (
                    "slowest",
                    .array([
                        .object([
                            ("site", .string("App/File.swift:12")), ("label", .string("fetch")),
                            ("kind", .string("post")),
                            ("durationMs", .double(3.2)), ("ageMs", .double(100)),
                        ]),
                        .object([
                            ("site", .string("App/File.swift:12")), ("label", .string("fetch")),
                            ("kind", .string("post")),
                            ("durationMs", .double(5.5)), ("ageMs", .double(50)),
                        ]),
                    ])
                ),
                (
                    "timers",
                    .array([
                        .object([
                            ("site", .string("App/Tick.swift:3")), ("label", .string("tick")),
                            ("dueInMs", .double(250)),
                            ("repeating", .bool(true)),
                        ])
                    ])
                ),
                ("recorder", .object([("capacityBytes", .int(262_144)), ("events", .int(1_234))])),
            ]),
            recorder: .object([
                ("name", .string(name)), ("kind", .string("MainLoop")), ("capacityBytes", .int(262_144)),
                (
                    "events",
                    .array([
                        .object([("atMs", .double(1)), ("kind", .string("wakeUp"))]),
                        .object([
                            ("atMs", .double(2)), ("kind", .string("slowJob")), ("site", .string("App/File.swift:12")),
                            ("label", .null), ("jobKind", .string("post")), ("durationMs", .double(3.2)),
                        ]),
                    ])
                ),
            ])
        )
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
