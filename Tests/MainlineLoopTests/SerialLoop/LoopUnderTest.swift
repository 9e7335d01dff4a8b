import Dispatch
import MainlineTesting
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// One loop of the ``SerialLoop`` contract suite, with what the scenarios need that the protocol leaves to each loop:
/// turning a plain `@Sendable` body into the loop's own body types, and running the loop until something happened.
///
/// Must be used on the main actor (the scenarios run there: it is where ``SerialLoop``'s scheduling requirements may
/// be called for every loop). Bodies receive the loop's ``SerialLoop/now`` at the moment they run.
@MainActor
protocol LoopUnderTest: Sendable {
    associatedtype Loop: SerialLoop
    nonisolated var loop: Loop { get }
    /// Whether time is virtual: then scenarios assert exact times, otherwise only what happened and in which order.
    var isVirtual: Bool { get }

    nonisolated func job(_ body: @escaping @Sendable (LoopInstant) -> Void) -> Loop.Job
    nonisolated func timerJob(_ body: @escaping @Sendable (LoopInstant) -> Void) -> Loop.TimerJob
    nonisolated func repeatingJob(
        _ body: @escaping @Sendable (Loop.Scheduled, LoopInstant) -> Void
    ) -> Loop.RepeatingJob
    /// Schedules another timer; called from inside one of this loop's bodies.
    nonisolated func scheduleFromBody(at deadline: LoopInstant, _ body: @escaping @Sendable (LoopInstant) -> Void)
    /// Inside a body: takes `duration` of the loop's time, as a long callback does (virtual on `TestLoop`, a busy
    /// wait on the clock of a real loop — the loop is working, not sleeping).
    nonisolated func busy(for duration: Duration)
    /// Lets the loop run until `log` holds `count` entries: real loops are waited for (an event, never a sleep);
    /// `TestLoop` is stepped, time jumping from deadline to deadline.
    func run(until log: EventLog, count: Int) async
    /// Lets the loop run until it has stopped.
    func runUntilStopped() async
    /// Lets the loop run what is due now (a real loop runs by itself: nothing to do).
    func runDueWork()
    /// Keeps the loop from running anything until the returned function is called, so that what the scenario sets up
    /// next is all queued first, however slowly it is set up (ThreadSanitizer). Only an `EventLoop` needs holding: the
    /// main-actor loops cannot run while the scenario runs on the main actor without suspending.
    func holdLoop() async -> @Sendable () -> Void
}

extension LoopUnderTest {
    func holdLoop() async -> @Sendable () -> Void { {} }
}

/// The body types of the main-actor loops (`MainLoop`, `TestLoop`), written once for both.
extension LoopUnderTest where Loop: MainlineLoop.Loop {
    nonisolated func job(_ body: @escaping @Sendable (LoopInstant) -> Void) -> @MainActor @Sendable () -> Void {
        { [loop] in body(loop.now) }
    }
    nonisolated func timerJob(_ body: @escaping @Sendable (LoopInstant) -> Void) -> @MainActor () -> Void {
        { [loop] in body(loop.now) }
    }
    nonisolated func repeatingJob(
        _ body: @escaping @Sendable (ScheduledTask, LoopInstant) -> Void
    ) -> @MainActor (ScheduledTask) -> Void {
        { [loop] task in body(task, loop.now) }
    }
    nonisolated func scheduleFromBody(at deadline: LoopInstant, _ body: @escaping @Sendable (LoopInstant) -> Void) {
        let job = timerJob(body)
        MainActor.assumeIsolated { _ = loop.schedule(at: deadline, job) }
    }
}

/// `MainLoop` in guest mode (Swift Testing owns the main thread; the loop is pumped from the main queue).
@MainActor
struct GuestMainLoopUnderTest: LoopUnderTest {
    let loop: MainLoop
    var isVirtual: Bool { false }

    init() {
        loop = MainLoop()
        loop.attachAsGuest()
    }

    nonisolated func busy(for duration: Duration) {
        let end = loop.now + duration
        while loop.now < end {}
    }
    func run(until log: EventLog, count: Int) async { await log.wait(forCount: count) }
    func runUntilStopped() async { await loop.waitUntilStopped() }
    func runDueWork() {}
}

/// A secondary `EventLoop` on its own thread.
@MainActor
struct EventLoopUnderTest: LoopUnderTest {
    let loop = EventLoop(name: "serial-loop-contract")
    var isVirtual: Bool { false }

    nonisolated func job(_ body: @escaping @Sendable (LoopInstant) -> Void) -> @Sendable () -> Void {
        { [loop] in body(loop.now) }
    }
    nonisolated func timerJob(_ body: @escaping @Sendable (LoopInstant) -> Void) -> @Sendable () -> Void {
        job(body)
    }
    nonisolated func repeatingJob(
        _ body: @escaping @Sendable (EventLoop.Scheduled, LoopInstant) -> Void
    ) -> @Sendable (EventLoop.Scheduled) -> Void {
        { [loop] task in body(task, loop.now) }
    }
    nonisolated func scheduleFromBody(at deadline: LoopInstant, _ body: @escaping @Sendable (LoopInstant) -> Void) {
        loop.schedule(at: deadline, timerJob(body))
    }
    nonisolated func busy(for duration: Duration) {
        let end = loop.now + duration
        while loop.now < end {}
    }
    func run(until log: EventLog, count: Int) async { await log.wait(forCount: count) }
    func runUntilStopped() async { await loop.waitUntilStopped() }
    func runDueWork() {}
    func holdLoop() async -> @Sendable () -> Void {
        let gate = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (held: CheckedContinuation<Void, Never>) in
            loop.post {
                held.resume()
                gate.wait()
            }
        }
        return { gate.signal() }
    }
}

/// `TestLoop`: virtual time, stepped by the scenario.
@MainActor
struct TestLoopUnderTest: LoopUnderTest {
    let loop = TestLoop()
    var isVirtual: Bool { true }

    nonisolated func busy(for duration: Duration) {
        MainActor.assumeIsolated { loop.simulateBusy(for: duration) }
    }
    func run(until log: EventLog, count: Int) async {
        // Step: run what is due, then jump to the next deadline, until the log is full or nothing is left to run.
        // The async forms: a task woken by a timer (a clock sleep) runs before the next step.
        while log.count < count {
            await loop.runUntilIdle()
            if log.count >= count { break }
            guard let next = loop.nextDeadline else { break }
            await loop.advance(to: max(next, loop.now))
        }
    }
    func runUntilStopped() async {
        while !loop.isStopped {
            loop.runIteration()
        }
    }
    func runDueWork() { loop.runUntilIdle() }
}

/// The loops of the suite, as test arguments.
enum LoopKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case guestMainLoop = "MainLoop (guest)"
    case eventLoop = "EventLoop"
    case testLoop = "TestLoop"

    var testDescription: String { rawValue }

    /// Runs `scenario` against a new loop of this kind, and stops the loop after.
    @MainActor
    func run(_ scenario: some LoopScenario) async {
        switch self {
        case .guestMainLoop: await Self.run(scenario, on: GuestMainLoopUnderTest())
        case .eventLoop: await Self.run(scenario, on: EventLoopUnderTest())
        case .testLoop: await Self.run(scenario, on: TestLoopUnderTest())
        }
    }

    @MainActor
    private static func run<Under: LoopUnderTest>(_ scenario: some LoopScenario, on under: Under) async {
        await scenario.run(under)
        under.loop.stop()
        await under.runUntilStopped()
    }
}

/// One behaviour of the contract, written once for every loop.
protocol LoopScenario: Sendable {
    @MainActor func run<Under: LoopUnderTest>(_ under: Under) async
}

/// What the bodies of a scenario did, in the order they did it: thread-safe, and awaitable.
final class EventLog: @unchecked Sendable {
    // @unchecked Sendable: every stored property is protected by `lock`.
    struct Entry: Equatable, Sendable {
        var name: String
        var time: LoopInstant
    }

    private let lock = _Lock()
    private var entries: [Entry] = []
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Records `name` at `time` (the loop's clock when the body ran).
    func record(_ name: String, at time: LoopInstant) {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            entries.append(Entry(name: name, time: time))
            let (done, waiting) = (
                waiters.filter { $0.count <= entries.count }, waiters.filter { $0.count > entries.count }
            )
            waiters = waiting
            return done.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    var count: Int { lock.withLock { entries.count } }
    var names: [String] { lock.withLock { entries.map(\.name) } }
    var times: [LoopInstant] { lock.withLock { entries.map(\.time) } }
    var all: [Entry] { lock.withLock { entries } }

    /// Suspends until the log holds at least `count` entries.
    func wait(forCount count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = lock.withLock {
                guard entries.count < count else { return true }
                waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// Runs `body` on a thread other than the test's and the loops', and returns once it has finished.
func onAnotherThread(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            body()
            done.resume()
        }
    }
}
