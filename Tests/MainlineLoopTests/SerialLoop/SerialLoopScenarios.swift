import Dispatch
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

// The behaviours every `SerialLoop` promises (see its DocC), each written once and run by `SerialLoopContractTests`
// against `MainLoop` in guest mode, an `EventLoop` and `TestLoop`. Real loops assert what happened and in which order;
// `TestLoop` also asserts the exact virtual times.

/// Bodies posted from one thread run in the order they were posted, each exactly once.
struct PostsFromOneThreadRunInOrderExactlyOnce: LoopScenario {
    let count = 2_000

    func run<Under: LoopUnderTest>(_ under: Under) async {
        let log = EventLog()
        let jobs = (0..<count).map { index in under.job { now in log.record("\(index)", at: now) } }
        let loop = under.loop
        let sendableJobs = UncheckedBox(jobs)
        await onAnotherThread {
            for job in sendableJobs.value { loop.post(job) }
        }
        await under.run(until: log, count: count)
        #expect(log.names == (0..<count).map { "\($0)" })
    }
}

/// Timers fire in deadline order; timers with equal deadlines in the order they were scheduled (300 timers on five
/// deadlines, scheduled in shuffled deadline order; moved here from the EventLoop timer tests).
struct TimersFireInDeadlineOrderWithTiesInSchedulingOrder: LoopScenario {
    let count = 300

    func run<Under: LoopUnderTest>(_ under: Under) async {
        let log = EventLog()
        let slots = (0..<count).map { _ in Int64.random(in: 0..<5) }
        let release = await under.holdLoop()
        let base = under.loop.now + .milliseconds(5)
        for (index, slot) in slots.enumerated() {
            under.loop.schedule(
                at: base + .milliseconds(slot),
                under.timerJob { now in log.record("\(index)", at: now) }
            )
        }
        release()
        await under.run(until: log, count: count)
        let expected = slots.indices.sorted { (slots[$0], $0) < (slots[$1], $1) }
        #expect(log.names == expected.map { "\($0)" })
        for entry in log.all {
            let deadline = base + .milliseconds(slots[Int(entry.name)!])
            if under.isVirtual {
                #expect(entry.time == deadline, "timer \(entry.name) fired at its deadline exactly")
            } else {
                #expect(entry.time >= deadline, "timer \(entry.name) fired early")
            }
        }
    }
}

/// A deadline in the past fires in the next timer phase: never synchronously, and — scheduled from a timer — not in
/// the phase that is running: work posted from the same timer runs first, in that iteration's post phase. In the next
/// phase it fires in deadline order with the timers still due (here ahead of `second`, whose deadline is later,
/// although `second` was due when the first phase began: that phase ends where the new timer would come first).
struct APastDeadlineFiresInTheNextTimerPhase: LoopScenario {
    func run<Under: LoopUnderTest>(_ under: Under) async {
        let log = EventLog()
        let start = under.loop.now
        let due = start + .milliseconds(10)
        let loop = under.loop
        let posted = under.job { now in log.record("posted", at: now) }
        under.loop.schedule(
            at: due,
            under.timerJob { now in
                log.record("first", at: now)
                under.scheduleFromBody(at: start) { now in log.record("past, from a timer", at: now) }
                loop.post(posted)
                log.record("first returns", at: now)
            }
        )
        under.loop.schedule(at: due, under.timerJob { now in log.record("second", at: now) })
        under.loop.schedule(at: start - .seconds(1), under.timerJob { now in log.record("past", at: now) })
        #expect(log.count == 0, "a past deadline never fires synchronously")
        await under.run(until: log, count: 6)
        #expect(log.names == ["past", "first", "first returns", "posted", "past, from a timer", "second"])
        if under.isVirtual {
            #expect(log.times == [start, due, due, due, due, due])
        }
    }
}

/// A repeating timer fires at a fixed rate, `start + k × interval`, until it cancels itself.
struct RepeatingTimersKeepAFixedRate: LoopScenario {
    func run<Under: LoopUnderTest>(_ under: Under) async {
        let log = EventLog()
        let start = under.loop.now
        let interval = Duration.milliseconds(5)
        let firings = Counter()
        let task = under.loop.scheduleRepeating(
            every: interval,
            under.repeatingJob { task, now in
                log.record("tick", at: now)
                guard firings.increment() == 5 else { return }
                task.cancel()
                // A sixth firing would be due within one interval (fixed rate, late ones skipped): a timer two
                // intervals on proves none came.
                under.scheduleFromBody(at: now + interval * 2) { now in log.record("after", at: now) }
            }
        )
        await under.run(until: log, count: 6)
        #expect(log.names == ["tick", "tick", "tick", "tick", "tick", "after"])
        #expect(task.isCancelled)
        #expect(task.interval == interval)
        let ticks = log.times.prefix(5)
        if under.isVirtual {
            #expect(Array(ticks) == (1...5).map { start + interval * $0 })
            #expect(log.times.last == start + interval * 7)
        } else {
            for (k, time) in ticks.enumerated() {
                #expect(time >= start + interval * (k + 1), "firing \(k + 1) came before its deadline")
            }
        }
    }
}

/// After `stop()` posts are refused — also from the loop while it drains; what was posted before still runs, in order,
/// each exactly once (moved here from the EventLoop lifecycle tests).
struct StopRefusesPostsThenDrains: LoopScenario {
    let count = 1_000

    func run<Under: LoopUnderTest>(_ under: Under) async {
        let log = EventLog()
        let refusedWhileDraining = Counter()
        let loop = under.loop
        let refusedProbe = under.job { _ in }
        // Held, so that everything below is still queued at stop().
        let release = await under.holdLoop()
        for index in 0..<count {
            under.loop.post(
                under.job { now in
                    log.record("\(index)", at: now)
                    if index == 0, !loop.post(refusedProbe) { refusedWhileDraining.increment() }
                }
            )
        }
        under.loop.stop()
        #expect(!under.loop.post(under.job { now in log.record("late", at: now) }))
        #expect(under.loop.tryPost(under.job { now in log.record("late", at: now) }) == .stopped)
        // Scheduled while the loop drains: it never fires (an EventLoop refuses it at once, a main-actor loop cancels
        // it when it shuts down).
        let timer = under.loop.schedule(after: .zero, under.timerJob { now in log.record("timer", at: now) })
        release()
        await under.runUntilStopped()
        #expect(log.names == (0..<count).map { "\($0)" })
        #expect(refusedWhileDraining.value == 1)
        #expect(timer.isCancelled)
    }
}

/// `stop(drainDeadline:)`: posted work starts only until the deadline; the rest is released unrun.
struct TheDrainDeadlineReleasesTheRest: LoopScenario {
    func run<Under: LoopUnderTest>(_ under: Under) async {
        let log = EventLog()
        let released = Counter()
        // One job, on the loop, queues a long job and 20 more behind it and stops the loop with a deadline shorter
        // than the long job: the drain starts the long job, and none after it. On the real loops the deadline is wide
        // (250 ms) because a loop thread preempted between `stop` and the drain for longer than the deadline (seen at
        // 10 ms under ThreadSanitizer beside the other suites) would rightly start nothing; the long job outlasts it.
        let loop = under.loop
        under.loop.post(
            under.job { _ in
                loop.post(
                    under.job { now in
                        log.record("long", at: now)
                        under.busy(for: .milliseconds(400))
                    }
                )
                for index in 0..<20 {
                    let token = ReleaseToken(released)
                    loop.post(
                        under.job { now in
                            _ = token
                            log.record("\(index)", at: now)
                        }
                    )
                }
                loop.stop(drainDeadline: .milliseconds(250))
            }
        )
        await under.runUntilStopped()
        #expect(log.names == ["long"])
        #expect(released.value == 20, "every job left at the deadline is released")
    }
}

/// An idle body runs once, after the work pending when it was registered, and never again.
struct AnIdleBodyRunsOnce: LoopScenario {
    func run<Under: LoopUnderTest>(_ under: Under) async {
        let log = EventLog()
        for index in 0..<3 { under.loop.post(under.job { now in log.record("post \(index)", at: now) }) }
        let registration = under.loop.whenIdle(under.job { now in log.record("idle", at: now) })
        await under.run(until: log, count: 4)
        // More iterations: the body must not run again.
        for index in 0..<3 { under.loop.post(under.job { now in log.record("later \(index)", at: now) }) }
        under.loop.schedule(after: .milliseconds(2), under.timerJob { now in log.record("timer", at: now) })
        await under.run(until: log, count: 8)
        #expect(log.names == ["post 0", "post 1", "post 2", "idle", "later 0", "later 1", "later 2", "timer"])
        #expect(!registration.isActive, "a registration is spent once its body ran")
    }
}

/// `cancel()` from another thread, racing the loop's firing: exactly one wins. A task whose `cancel()` returned with
/// `isCancelled` never starts; any other has started or starts, exactly once; a body never sees its task cancelled.
struct CancelFromAnotherThreadEitherWinsOrTheBodyRuns: LoopScenario {
    let rounds: Int
    let timersPerRound: Int

    func run<Under: LoopUnderTest>(_ under: Under) async {
        var won = 0
        var lost = 0
        for _ in 0..<rounds {
            let log = EventLog()
            let start = under.loop.now
            let slots = (0..<timersPerRound).map { _ in RaceSlot<Under.Loop.Scheduled>() }
            // The canceller starts once the loop has begun firing, and cancels from the last timer backwards, so that
            // it meets the loop in the middle of the phase: some cancellations win, some lose.
            let firing = DispatchSemaphore(value: 0)
            for slot in slots {
                let handle = under.loop.schedule(
                    at: start,
                    under.timerJob { _ in
                        slot.bodyStarted()
                        firing.signal()
                        under.busy(for: .microseconds(5))
                    }
                )
                slot.set(handle)
            }
            let sendableSlots = slots
            // The canceller and the loop race: the loop runs on its own (real loops) or is stepped here (TestLoop).
            async let cancelled: Void = onAnotherThread {
                firing.wait()
                for slot in sendableSlots.reversed() { slot.cancel() }
            }
            under.runDueWork()
            await cancelled
            // Every timer due at `start` has fired or been dropped before one due later fires.
            under.loop.schedule(at: start + .milliseconds(1), under.timerJob { now in log.record("sentinel", at: now) })
            await under.run(until: log, count: 1)
            for slot in slots {
                let (runs, cancelWon, sawCancelled) = slot.outcome
                #expect(runs == (cancelWon ? 0 : 1), "cancel won: \(cancelWon), body runs: \(runs)")
                #expect(!sawCancelled, "a body started although cancel() had already won")
                if cancelWon { won += 1 } else { lost += 1 }
            }
        }
        #expect(won + lost == rounds * timersPerRound)
        #expect(lost >= rounds, "the loop fired at least the timer that started each round's canceller")
    }
}

// MARK: - Helpers

/// One raced timer: its handle, what `cancel()` returned into, and what its body saw.
final class RaceSlot<Handle: ScheduledWork>: @unchecked Sendable {
    // @unchecked Sendable: every stored property is protected by `lock`.
    private let lock = _Lock()
    private var handle: Handle?
    private var runs = 0
    private var cancelWon = false
    private var sawCancelled = false

    func set(_ handle: Handle) { lock.withLock { self.handle = handle } }

    func cancel() {
        guard let handle = lock.withLock({ self.handle }) else { return }
        handle.cancel()
        let won = handle.isCancelled  // after cancel() returned: true exactly when it won
        lock.withLock { cancelWon = won }
    }

    func bodyStarted() {
        let handle = lock.withLock { self.handle }
        let cancelled = handle?.isCancelled ?? false
        lock.withLock {
            runs += 1
            if cancelled { sawCancelled = true }
        }
    }

    var outcome: (runs: Int, cancelWon: Bool, sawCancelled: Bool) { lock.withLock { (runs, cancelWon, sawCancelled) } }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    // @unchecked Sendable: `count` is protected by `lock`.
    private let lock = _Lock()
    private var count = 0

    /// Adds one; returns the new value.
    @discardableResult
    func increment() -> Int {
        lock.withLock {
            count += 1; return count
        }
    }
    var value: Int { lock.withLock { count } }
}

/// Counts its own release in `counter`: captured by a body, it tells when the body was released.
final class ReleaseToken: Sendable {
    let counter: Counter
    init(_ counter: Counter) { self.counter = counter }
    deinit { counter.increment() }
}

/// Carries a value the test knows is used by one thread at a time.
struct UncheckedBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: handed from the test to one other thread, which alone uses it from then on.
    let value: Value
    init(_ value: Value) { self.value = value }
}
