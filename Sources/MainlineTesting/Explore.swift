import MainlineLoopCore
import Testing

/// What `explore(seeds:strategy:checksDeterminism:sourceLocation:_:)` found. A value; thread-safe.
public struct ExploreResult: Sendable, Equatable {
    /// How many runs of the body it made (the determinism check's two included).
    public var runs: Int
    /// The seed of the first failing run; `nil` when every seed passed (or the body was not deterministic).
    public var failingSeed: UInt64?
    /// The line that replays the failing run (`TestLoop(replaying:)`); `nil` when none failed.
    public var replayLine: String?
    /// Whether two runs of one seed did the same (ran the same items in the same order, and failed or passed alike);
    /// `true` when the check was not asked for.
    public var isDeterministic: Bool
}

/// Runs `body` once per seed, each time with a fresh ``TestSchedule`` of `strategy`, and stops at the first run that
/// fails: it records one issue, whose message ends with the one line that replays that run —
/// `TestLoop(replaying: "mainline-schedule/1 pct(3) seed=… choices=…")`.
///
/// Every `TestLoop` the body creates runs under the schedule it receives — `TestLoop()` (a fixture's too) as
/// `TestLoop(schedule: schedule)` does: their posts from different threads, timers due at one instant and settle
/// notifications of one height run in the schedule's order. A run fails when the body records an issue (`#expect`,
/// `#require`) or throws; the run's own issues are shown as known issues, and the one recorded issue names the first
/// of them.
///
/// With `checksDeterminism` (the default), the first seed runs twice first: when the two runs ran different items, or
/// one failed and the other did not, the test is not deterministic under a fixed schedule — something outside the
/// loop (a real clock, a thread, a random number) decides — and that is recorded as the issue instead of exploring.
///
/// Call it on the main actor, from a Swift Testing test. It runs the seeds one after another on the main actor, not on
/// the concurrency pool.
///
/// ```swift
/// @MainActor @Test func theTotalIsRightInEveryOrder() async {
///     await explore(seeds: 0..<1000) { schedule in
///         let loop = TestLoop(schedule: schedule)
///         …
///     }
/// }
/// ```
///
/// - Parameters:
///   - seeds: The seeds to try, in order.
///   - strategy: How each run's schedule chooses: `.pct(depth: 3)` by default, `.random`, or `.fifo` (the real loop's
///     order: every seed runs the same).
///   - checksDeterminism: Whether to run the first seed twice and compare the runs first.
///   - sourceLocation: Where the issue is recorded (the caller's).
///   - body: The test, run once per seed with that seed's schedule.
/// - Returns: What was found.
@MainActor
@discardableResult
public func explore(
    seeds: Range<UInt64>,
    strategy: TestSchedule.Strategy = .pct(depth: 3),
    checksDeterminism: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @MainActor (TestSchedule) async throws -> Void
) async -> ExploreResult {
    var result = ExploreResult(runs: 0, failingSeed: nil, replayLine: nil, isDeterministic: true)
    // PCT places its change points among the steps it expects: as many as the longest run so far had choices.
    var expectedSteps = 64
    func run(_ seed: UInt64) async -> (schedule: TestSchedule, failure: String?) {
        let schedule = TestSchedule(strategy: strategy, seed: seed, expectedSteps: expectedSteps)
        let failure = await _exploreRun(schedule, sourceLocation: sourceLocation, body)
        result.runs += 1
        expectedSteps = max(expectedSteps, schedule.choices.count)
        return (schedule, failure)
    }
    if checksDeterminism, let first = seeds.first {
        let (one, oneFailure) = await run(first)
        let (two, twoFailure) = await run(first)
        if let difference = _firstDifference(one.events, two.events, oneFailure, twoFailure) {
            result.isDeterministic = false
            Issue.record(
                "Not deterministic under a fixed schedule: two runs of seed \(first) (\(one)) differ — \(difference). Something outside the test loops decides (a real clock, a thread, a random number); explore cannot replay it.",
                sourceLocation: sourceLocation
            )
            return result
        }
    }
    for seed in seeds {
        let (schedule, failure) = await run(seed)
        guard let failure else { continue }
        result.failingSeed = seed
        result.replayLine = schedule.replayLine
        Issue.record(
            "Failed at seed \(seed) of \(seeds.lowerBound)..<\(seeds.upperBound) (\(schedule), after \(result.runs) runs): \(failure) — replay: TestLoop(replaying: \"\(schedule.replayLine)\"), or the whole body with explore(replaying:) and the same line",
            sourceLocation: sourceLocation
        )
        return result
    }
    return result
}

/// Runs `body` once under the schedule `line` recorded — the line a failing
/// `explore(seeds:strategy:checksDeterminism:sourceLocation:_:)` printed — with the same checks as that run: its test
/// loops, its tasks' jobs and its escapes from virtual time are what they were, so the failure repeats, and is recorded
/// as one issue.
///
/// Call it on the main actor, from a Swift Testing test, with the body of the `explore` call it replaces.
///
/// ```swift
/// await explore(replaying: "mainline-schedule/1 pct(3) seed=17 choices=0,2,1") { schedule in
///     let loop = TestLoop(schedule: schedule)
///     …
/// }
/// ```
///
/// - Parameters:
///   - line: The replay line; one that cannot be read is recorded as an issue naming what was wrong
///     (`TestSchedule.ReplayLineError`), and nothing runs.
///   - sourceLocation: Where the issue is recorded (the caller's).
///   - body: The test, run once with the line's schedule.
/// - Returns: What was found: one run, failed or passed.
@MainActor
@discardableResult
public func explore(
    replaying line: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @MainActor (TestSchedule) async throws -> Void
) async -> ExploreResult {
    var result = ExploreResult(runs: 0, failingSeed: nil, replayLine: nil, isDeterministic: true)
    let schedule: TestSchedule
    do {
        schedule = try TestSchedule(replaying: line)
    } catch {
        Issue.record(error, sourceLocation: sourceLocation)
        return result
    }
    let failure = await _exploreRun(schedule, sourceLocation: sourceLocation, body)
    result.runs = 1
    guard let failure else { return result }
    result.failingSeed = schedule.seed
    result.replayLine = schedule.replayLine
    Issue.record("Failed replaying \"\(line)\": \(failure)", sourceLocation: sourceLocation)
    return result
}

/// One run of an exploration: `body` under `schedule`, its loops and the tasks it starts in the schedule's lane
/// (`_TaskLane`), every escape from virtual time recorded as an issue of the run. Returns the run's first issue,
/// described; `nil` when it passed. Call it on the main actor.
@MainActor
func _exploreRun(
    _ schedule: TestSchedule,
    sourceLocation: SourceLocation,
    _ body: @MainActor (TestSchedule) async throws -> Void
) async -> String? {
    // Tasks created before the run have smaller ids than this one's: only tasks newer than the run can be the run's.
    // Awaiting it on the main actor is also a turn of the main actor between runs: a test's hundreds of runs would
    // otherwise hold it for seconds (minutes under ThreadSanitizer) while every other main-actor test waits.
    let firstTaskID = await Task { @MainActor in _VirtualTimeTasks.currentTaskID ?? 0 }.value
    return await _runRecordingIssues(sourceLocation: sourceLocation) {
        let lane = schedule.lane
        lane.begin(driver: _VirtualTimeTasks.currentTaskID ?? 0, firstTaskID: firstTaskID)
        var thrown: (any Error)?
        do {
            try await TestSchedule.$exploring.withValue(schedule) {
                try await _TaskLane.$current.withValue(lane) { try await body(schedule) }
            }
        } catch {
            thrown = error
        }
        for escape in lane.finish() {
            Issue.record(
                "Escaped virtual time: \(escape). Wrap the call in outsideVirtualTime(_:_:) if it is meant to.",
                sourceLocation: sourceLocation
            )
        }
        if let thrown { throw thrown }
    }
}

/// Runs `body`, turning the issues it records (and an error it throws) into known issues; returns the first one's
/// description, or `nil` when it recorded none. Call it on the caller's actor (it runs `body` there).
@MainActor
func _runRecordingIssues(
    sourceLocation: SourceLocation,
    _ body: @MainActor () async throws -> Void
) async -> String? {
    let seen = _Locked<[String]>([])
    await withKnownIssue(isIntermittent: true, sourceLocation: sourceLocation) {
        do { try await body() } catch { Issue.record(error, sourceLocation: sourceLocation) }
    } matching: { issue in
        seen.withLock { $0.append(String(describing: issue)) }
        return true
    }
    return seen.withLock { $0.first }
}

/// How two runs of one schedule differ: the first event that is not the same, or that one failed; `nil` when they
/// did the same. Callable from any thread.
func _firstDifference(_ one: [String], _ two: [String], _ oneFailure: String?, _ twoFailure: String?) -> String? {
    for index in 0..<max(one.count, two.count) {
        let first = index < one.count ? one[index] : "nothing"
        let second = index < two.count ? two[index] : "nothing"
        if first != second { return "item \(index + 1) ran \(first) in one and \(second) in the other" }
    }
    if (oneFailure == nil) != (twoFailure == nil) {
        let outcome = { (failure: String?) in failure.map { "failed: \($0)" } ?? "passed" }
        return "one run \(outcome(oneFailure)) and the other \(outcome(twoFailure))"
    }
    return nil
}
