import Benchmark
import MainlineTesting

// How fast `explore` can search orders: schedules explored per second for a 100-job scenario, each exploring strategy
// beside the real loop's order (`.fifo`, recorded) and beside a test loop with no schedule at all, in one run. See
// README.md for what is measured and the figures.

/// One exploring strategy's schedules, or none: the peers of the schedule-exploration group.
enum ExplorationPeer: String, CaseIterable, Sendable {
    /// `TestLoop()` without a schedule: the real loop's order, nothing recorded (the floor).
    case unscheduled = "no schedule"
    /// `TestSchedule.fifo`: the real loop's order, every choice recorded (the baseline).
    case fifo = ".fifo"
    /// `TestSchedule.random(seed:)`: a uniformly random ready timer at every choice.
    case random = ".random"
    /// `TestSchedule.pct(seed:depth:)` with depth 3: random priorities and two change points.
    case pct = ".pct(depth: 3)"

    /// A fresh test loop for one run of the scenario under `seed`. Call it on the main actor.
    @MainActor
    func loop(seed: UInt64) -> TestLoop {
        switch self {
        case .unscheduled: TestLoop()
        case .fifo: TestLoop(schedule: .fifo)
        case .random: TestLoop(schedule: .random(seed: seed))
        case .pct: TestLoop(schedule: .pct(seed: seed, depth: 3))
        }
    }
}

/// The scenario a schedule explores: 100 timers due at one instant on a fresh `TestLoop`, so that the loop asks its
/// schedule 99 times which of the ready timers runs next; each records that it ran. Main-actor state.
@MainActor
enum ExplorationWorkload {
    /// Jobs per schedule: timers due at the same instant.
    static let jobs = 100
    /// Schedules (fresh loops, each with the next seed) per benchmark iteration.
    static let schedulesPerRun = 1_000
    /// The next seed, so that every iteration explores schedules it has not explored yet.
    private static var nextSeed: UInt64 = 0

    /// Runs `schedulesPerRun` schedules of `peer`, checking that every one ran every job exactly once. Returns the
    /// checksum of the orders (the sum over every schedule of each job's position times its index), so that the work
    /// cannot be dropped.
    static func run(_ peer: ExplorationPeer) -> Int {
        var checksum = 0
        for _ in 0..<schedulesPerRun {
            let loop = peer.loop(seed: nextSeed)
            nextSeed &+= 1
            var order: [Int] = []
            order.reserveCapacity(jobs)
            for job in 0..<jobs {
                loop.schedule(after: .seconds(1)) { order.append(job) }
            }
            loop.advance(by: .seconds(1))
            precondition(order.count == jobs, "a schedule ran \(order.count) of \(jobs) jobs")
            for (position, job) in order.enumerated() { checksum &+= position &* job }
        }
        return checksum
    }
}

/// Registers the schedule-exploration group. Called from `benchmarks`, after the main loop attached.
func registerScheduleExplorationBenchmarks() {
    // 17. Schedules explored per second: 1,000 schedules per iteration, each a fresh `TestLoop` (with a fresh
    //     schedule of its strategy and the next seed) that runs 100 timers due at one instant. Scaled by `.kilo`, so
    //     wall clock reads as the time per schedule and throughput as schedules per second. The loops run on the main
    //     actor, in an `onMainLoop` body (one hop per 1,000 schedules).
    for peer in ExplorationPeer.allCases {
        Benchmark(
            "Schedules explored, 100 timers at one instant: \(peer.rawValue)",
            configuration: .init(
                metrics: [.wallClock, .throughput],
                timeUnits: .microseconds,
                warmupIterations: 1,
                scalingFactor: .kilo,
                maxDuration: .seconds(4),
                maxIterations: 20
            )
        ) { _ in
            blackHole(onMainLoop { ExplorationWorkload.run(peer) })
        }
    }
}
