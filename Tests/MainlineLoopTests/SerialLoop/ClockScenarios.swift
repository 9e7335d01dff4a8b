import CMainlineShims
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

// `LoopClock` on every loop: sleepers wake in deadline order with the loop's timers, a cancelled sleeper's timer is
// cancelled, a stopped loop wakes its sleepers with `LoopStopped`. Sleepers are main-actor tasks: a sleep started on the
// main actor arms its timer before it suspends, so once a sleeper has said "sleeping" its timer is armed.

/// Starts a main-actor task that logs `sleeping` to `armed`, then runs `sleep`; returns once the timer is armed.
@MainActor
func startSleeper<T: Sendable>(
    _ armed: EventLog,
    _ sleep: @escaping @MainActor @Sendable () async throws -> T
) async -> Task<T, any Error> {
    let count = armed.count
    let task = Task { @MainActor in
        armed.record("sleeping", at: .zero)
        return try await sleep()
    }
    await armed.wait(forCount: count + 1)
    return task
}

/// Tasks sleeping on the loop's clock wake in deadline order among the loop's timers, at (virtual) or after (real)
/// their deadlines — through `clock.sleep(until:)`, `clock.sleep(for:)` and `Task.sleep(until:clock:)` alike.
struct SleepersWakeInDeadlineOrderWithTheLoopsTimers: LoopScenario {
    func run<Under: LoopUnderTest>(_ under: Under) async {
        let log = EventLog()
        let armed = EventLog()
        let release = await under.holdLoop()
        let clock = under.loop.clock
        let before = under.loop.now
        let read = clock.now
        #expect(read >= before && read <= under.loop.now, "the clock reads the loop's now")
        // Real loops: far enough ahead that the sleepers (and timers) are all armed before the first deadline. Under
        // ThreadSanitizer beside the other suites 100 ms was not always enough: the second sleeper started after
        // `base + 3 ms` had passed, so its `sleep(for:)` was negative and it logged before the first woke (3, 1, 5).
        let slack: Duration = mainline_is_thread_sanitized() != 0 ? .seconds(1) : .milliseconds(100)
        let base = read + (under.isVirtual ? .milliseconds(20) : slack)
        // Deadlines `step` apart: 1 ms in virtual time. Real loops space them wider, because `sleep(for:)` counts from
        // the clock's reading inside the call, a moment after the test computed the duration: a sleeper preempted in
        // between sleeps that much later (seen on a loaded machine without ThreadSanitizer: 1, 5, 3 at 1 ms apart).
        let step: Duration =
            under.isVirtual
            ? .milliseconds(1) : mainline_is_thread_sanitized() != 0 ? .milliseconds(250) : .milliseconds(100)
        let sleepers = [
            await startSleeper(armed) {
                try await clock.sleep(until: base + step * 1)
                log.record("sleep 1", at: clock.now)
            },
            await startSleeper(armed) {
                try await clock.sleep(for: base + step * 3 - clock.now)
                log.record("sleep 3", at: clock.now)
            },
            await startSleeper(armed) {
                try await Task.sleep(until: base + step * 5, clock: clock)
                log.record("sleep 5", at: clock.now)
            },
        ]
        under.loop.schedule(at: base + step * 2, under.timerJob { now in log.record("timer 2", at: now) })
        under.loop.schedule(at: base + step * 4, under.timerJob { now in log.record("timer 4", at: now) })
        release()
        await under.run(until: log, count: 5)
        for sleeper in sleepers { try? await sleeper.value }
        let deadlines = ["sleep 1": 1, "timer 2": 2, "sleep 3": 3, "timer 4": 4, "sleep 5": 5]
        if under.isVirtual {
            // Virtual time: each woken task runs before time moves on, so the log is the deadline order exactly.
            #expect(log.names == ["sleep 1", "timer 2", "sleep 3", "timer 4", "sleep 5"])
        } else {
            // Real time: a sleeper's timer fires in deadline order, but the task it wakes runs afterwards, on the main
            // actor — so only the sleepers' order among themselves, and the timers', are the loop's to promise.
            #expect(log.names.filter { $0.hasPrefix("sleep") } == ["sleep 1", "sleep 3", "sleep 5"])
            #expect(log.names.filter { $0.hasPrefix("timer") } == ["timer 2", "timer 4"])
        }
        for entry in log.all {
            let deadline = base + step * deadlines[entry.name]!
            if under.isVirtual {
                #expect(entry.time == deadline, "\(entry.name) woke at its deadline exactly")
            } else {
                #expect(entry.time >= deadline, "\(entry.name) woke early")
            }
        }
    }
}

/// Cancelling a sleeping task throws `CancellationError` at once — no time passes — and cancels its timer.
struct CancellingASleeperCancelsItsTimer: LoopScenario {
    func run<Under: LoopUnderTest>(_ under: Under) async {
        let clock = under.loop.clock
        let sleeper = await startSleeper(EventLog()) { try await clock.sleep(for: .seconds(3_600)) }
        #expect(under.loop.snapshot().timers.count == 1, "the sleep armed one timer")
        let before = under.loop.now
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        under.runDueWork()
        #expect(under.loop.snapshot().timers.isEmpty, "the sleeper's timer was cancelled with it")
        if under.isVirtual { #expect(under.loop.now == before) }
    }
}

/// A loop that stops cancels its timers, so it wakes the tasks sleeping on its clock with `LoopStopped` (never leaves
/// them waiting); sleeping on a stopped loop's clock throws `LoopStopped` at once.
struct AStoppedLoopWakesItsSleepersWithLoopStopped: LoopScenario {
    func run<Under: LoopUnderTest>(_ under: Under) async {
        let clock = under.loop.clock
        let sleeper = await startSleeper(EventLog()) { try await clock.sleep(for: .seconds(3_600)) }
        under.loop.stop()
        await under.runUntilStopped()
        await #expect(throws: LoopStopped.self) { try await sleeper.value }
        await #expect(throws: LoopStopped.self) { try await clock.sleep(for: .milliseconds(1)) }
    }
}
