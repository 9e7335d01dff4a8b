import MainlineLoopCore

/// The order in which a ``TestLoop`` runs work that the package's rules let run in either order, and the record of
/// every choice it made: what `explore(seeds:strategy:checksDeterminism:sourceLocation:_:)` varies to find order
/// bugs, and what a replay line (``replayLine``) reproduces.
///
/// Where more than one piece of work is ready and either order is allowed — posts from different producers (threads
/// or tasks; each producer's own posts stay in posting order), timers due at the same instant, settle notifications of
/// the same height in one round, and, during `explore`, the jobs of the run's tasks (see <doc:FindingOrderBugs>) — a
/// loop created with `TestLoop(schedule:)` asks its schedule which runs next:
///
/// - ``fifo``: the order a real loop uses (posting, scheduling, request order).
/// - ``random(seed:)``: a uniformly random ready item at every choice.
/// - ``pct(seed:depth:)``: probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010): every producer, timer
///   and notification gets a random priority when first seen, the highest-priority ready item runs, and at `depth − 1`
///   random steps the item that runs drops below every other. It finds a bug that needs `depth` ordering events with
///   probability at least 1/(n·k^(depth−1)) per run, for n items and k steps.
///
/// Several loops may share one schedule (their choices are recorded in one sequence). Thread-safe: a schedule's loops
/// call it on the main actor; ``replayLine``, ``choices`` and ``events`` may be read from any thread.
public final class TestSchedule: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: every mutable property is protected by `lock`.

    /// How a schedule chooses. A value; thread-safe.
    public enum Strategy: Sendable, Equatable {
        /// The real loop's order.
        case fifo
        /// A uniformly random ready item.
        case random
        /// Random priorities with `depth − 1` change points.
        case pct(depth: Int)
    }

    /// The schedule `explore` is running its body under, for the test loops the body creates without one. Set only by
    /// `explore` (task-local: the body's task and the tasks it starts see it).
    @TaskLocal static var exploring: TestSchedule?

    /// The tasks of the run this schedule explores, held for it, and what escaped virtual time during the run.
    let lane = _TaskLane()

    /// How this schedule chooses.
    public let strategy: Strategy
    /// The seed of its random choices (0 for ``fifo``).
    public let seed: UInt64

    private let lock = _Lock()
    private var generator: SeededRandomNumberGenerator
    /// The choices made where more than one item was ready (indices into the ready items, in stored order).
    private var made: [Int] = []
    /// What ran, in order: the phase and the site of every item the schedule was asked about.
    private var log: [String] = []
    /// Choices to replay before choosing by ``strategy``; `replayed` of them are used.
    private let replaying: [Int]
    private var replayed = 0
    /// PCT: the priority of every item seen, and the steps at which the running item's priority drops.
    private var priorities: [UInt64: Int] = [:]
    private var changePoints: [Int] = []
    private var nextLowPriority = 0

    init(strategy: Strategy, seed: UInt64, expectedSteps: Int = 64, replaying: [Int] = []) {
        self.strategy = strategy
        self.seed = seed
        self.replaying = replaying
        generator = SeededRandomNumberGenerator(seed: seed)
        defer {
            // The lane's held jobs are chosen as every other ready item is; `unowned`: the schedule owns the lane.
            lane.choose { [unowned self] tasks in self.chooseTask(among: tasks) }
        }
        if case .pct(let depth) = strategy {
            let steps = max(expectedSteps, 1)
            changePoints = (0..<max(depth - 1, 0)).map { _ in Int(generator.next() % UInt64(steps)) }
            nextLowPriority = max(depth - 1, 0)
        }
    }

    /// The real loop's order, recorded (what `TestLoop(schedule:)` defaults to when exploring with `.fifo`).
    public static var fifo: TestSchedule { TestSchedule(strategy: .fifo, seed: 0) }

    /// A uniformly random ready item at every choice, from `seed`.
    public static func random(seed: UInt64) -> TestSchedule { TestSchedule(strategy: .random, seed: seed) }

    /// Probabilistic concurrency testing from `seed`, for bugs of `depth` ordering events (3 by default).
    public static func pct(seed: UInt64, depth: Int = 3) -> TestSchedule {
        TestSchedule(strategy: .pct(depth: max(depth, 1)), seed: seed)
    }

    /// The choices made so far where more than one item was ready: each an index into the ready items in the order a
    /// real loop would run them (0 is what a real loop runs).
    public var choices: [Int] { lock.withLock { made } }

    /// What the schedule's loops ran, in order, one line per item: its phase and site. Two runs of a deterministic
    /// test under the same schedule have the same events.
    public var events: [String] { lock.withLock { log } }

    /// One line that reproduces this schedule's run: pass it to `TestLoop(replaying:)` or `TestSchedule(replaying:)`.
    public var replayLine: String {
        let choices = self.choices.map(String.init).joined(separator: ",")
        return "\(Self.replayPrefix) \(strategyName) seed=\(seed) choices=\(choices.isEmpty ? "-" : choices)"
    }

    /// The strategy and seed, as `replayLine` spells them.
    public var description: String { "\(strategyName) seed=\(seed)" }

    private var strategyName: String {
        switch strategy {
        case .fifo: "fifo"
        case .random: "random"
        case .pct(let depth): "pct(\(depth))"
        }
    }

    static let replayPrefix = "mainline-schedule/1"

    /// Chooses which held job of the run's tasks runs next, among jobs of `tasks` (their numbers in the run, in the
    /// order they were held), and records it.
    private func chooseTask(among tasks: [Int]) -> Int {
        let candidates = tasks.map { task in
            _ReadyCandidate(id: 0x7A5C_0000_0000_0000 | UInt64(task), site: Self.taskSite, name: "\(task)")
        }
        return choose(.task, among: candidates)
    }

    /// The site the candidates of task jobs carry (they are named by their task's number instead).
    private static let taskSite = LoopSite(label: "task")

    /// Chooses one of `candidates` (see `_ReadyOrder.choose(_:among:)`) and records it.
    func choose(_ kind: _ReadyKind, among candidates: [_ReadyCandidate]) -> Int {
        lock.withLock {
            let pick = candidates.count < 2 ? 0 : pickLocked(candidates)
            if candidates.count > 1 { made.append(pick) }
            log.append("\(kind.rawValue) \(candidates[pick].name ?? candidates[pick].site.description)")
            return pick
        }
    }

    private func pickLocked(_ candidates: [_ReadyCandidate]) -> Int {
        if replayed < replaying.count {
            defer { replayed += 1 }
            return min(replaying[replayed], candidates.count - 1)
        }
        switch strategy {
        case .fifo:
            return 0
        case .random:
            return Int(generator.next() % UInt64(candidates.count))
        case .pct:
            for candidate in candidates where priorities[candidate.id] == nil {
                // Above every change point's priority, random among the items: the initial priorities of PCT.
                priorities[candidate.id] = changePoints.count + 1 + Int(generator.next() % (1 << 32))
            }
            func highest() -> Int {
                candidates.indices.max { priorities[candidates[$0].id]! < priorities[candidates[$1].id]! }!
            }
            guard changePoints.contains(made.count) else { return highest() }
            // A change point: the item about to run drops below every other, and another runs.
            nextLowPriority -= 1
            priorities[candidates[highest()].id] = nextLowPriority
            return highest()
        }
    }
}
