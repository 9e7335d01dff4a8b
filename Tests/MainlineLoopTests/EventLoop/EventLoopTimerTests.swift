import Foundation
import MainlineTesting
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

extension EventLoopTests {
    @Suite("EventLoop timers")
    struct TimerTests {
        @Test func aNonPositiveRepeatingIntervalIsReportedAndClamped() async {
            let loop = EventLoop()
            let diagnostics = DiagnosticsRecorder()
            let task = diagnostics.record { loop.scheduleRepeating(every: .seconds(-1)) { _ in } }
            #expect(diagnostics.kinds == [.repeatingTimerInterval])
            #expect(diagnostics.diagnostics.first?.message.hasPrefix("EventLoop.scheduleRepeating(every:") == true)
            #expect(task.interval == .nanoseconds(1))
            task.cancel()
            loop.stop()
            await loop.waitUntilStopped()
        }

        // Deadline order with ties in scheduling order: `SerialLoopContractTests`, for every loop.

        @Test func aTimerFiresOnTheLoopNoEarlierThanItsDeadline() async {
            let loop = EventLoop()
            let scheduledAt = loop.now
            let (firedAt, onLoop) = await withCheckedContinuation {
                (done: CheckedContinuation<(LoopInstant, Bool), Never>) in
                loop.schedule(after: .milliseconds(3)) { done.resume(returning: (loop.now, loop.inEventLoop)) }
            }
            #expect(firedAt >= scheduledAt + .milliseconds(3))
            #expect(onLoop)
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func aTimerCancelledFromAnotherThreadBeforeItsDeadlineNeverFires() async {
            let loop = EventLoop()
            let fired = _Locked<[String]>([])
            // The loop is held inside a post until the other thread has cancelled: no timer can fire before that.
            let doomed = await withCheckedContinuation { (scheduled: CheckedContinuation<EventLoop.Scheduled, Never>) in
                loop.post {
                    let doomed = loop.schedule(after: .milliseconds(1)) {
                        fired.withLock { $0.append("cancelled one") }
                    }
                    let cancelled = DispatchSemaphore(value: 0)
                    Thread.detachNewThread {
                        doomed.cancel()
                        doomed.cancel()  // idempotent
                        cancelled.signal()
                    }
                    cancelled.wait()
                    scheduled.resume(returning: doomed)
                }
            }
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.schedule(after: .milliseconds(2)) {
                    fired.withLock { $0.append("later one") }
                    done.resume()
                }
            }
            #expect(fired.withLock { $0 } == ["later one"])
            #expect(doomed.isCancelled && !doomed.isScheduled && doomed.firings == 0)
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func aRepeatingTimerCancelledInsideItsCallbackNeverFiresAgain() async {
            let loop = EventLoop()
            let firingsSeen = _Locked(0)
            let task = await withCheckedContinuation { (done: CheckedContinuation<EventLoop.Scheduled, Never>) in
                loop.scheduleRepeating(every: .milliseconds(1)) { task in
                    let seen = firingsSeen.withLock {
                        $0 += 1
                        return $0
                    }
                    guard seen == 3 else { return }
                    task.cancel()
                    task.cancel()  // idempotent
                    // Twenty more intervals: a timer that kept going would fire again before this.
                    loop.schedule(after: .milliseconds(20)) { done.resume(returning: task) }
                }
            }
            #expect(firingsSeen.withLock { $0 } == 3)
            #expect(task.firings == 3 && task.isCancelled)
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func aRepeatingTimerCancelledFromAnotherThreadStopsFiring() async {
            let loop = EventLoop()
            let firingsSeen = _Locked(0)
            let started = _Locked<CheckedContinuation<Void, Never>?>(nil)
            let scheduledTask = _Locked<EventLoop.Scheduled?>(nil)
            await withCheckedContinuation { (running: CheckedContinuation<Void, Never>) in
                started.withLock { $0 = running }
                let scheduled = loop.scheduleRepeating(every: .milliseconds(1)) { _ in
                    let seen = firingsSeen.withLock {
                        $0 += 1
                        return $0
                    }
                    if seen == 2 { started.withLock { $0.take() }?.resume() }
                }
                scheduledTask.withLock { $0 = scheduled }
            }
            let task = scheduledTask.withLock { $0! }
            task.cancel()  // from the test's thread, while the timer keeps firing on the loop
            let firingsAtCancel = task.firings
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.schedule(after: .milliseconds(20)) { done.resume() }
            }
            #expect(task.firings == firingsAtCancel)
            #expect(firingsSeen.withLock { $0 } == firingsAtCancel)
            #expect(task.isCancelled)
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func cancellingAOneShotTimerThatFiredDoesNothing() async {
            let loop = EventLoop()
            let task = loop.schedule(after: .zero) {}
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.schedule(after: .milliseconds(1)) { done.resume() }
            }
            #expect(task.firings == 1 && !task.isScheduled)
            task.cancel()
            #expect(!task.isCancelled)
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func aRepeatingTimerKeepsAFixedRateAndCountsTheFiringsItSkipped() async {
            let loop = EventLoop()
            let interval = Duration.milliseconds(2)
            let deadlines = _Locked<[LoopInstant]>([])
            let task = await withCheckedContinuation { (done: CheckedContinuation<EventLoop.Scheduled, Never>) in
                loop.scheduleRepeating(every: interval) { task in
                    let count = deadlines.withLock {
                        $0.append(task.deadline)
                        return $0.count
                    }
                    if count == 1 {
                        // Keep the loop busy past five more deadlines: a loop too busy to fire on time.
                        let busyUntil = task.deadline + interval * 5
                        while loop.now < busyUntil {}
                    } else if count == 3 {
                        task.cancel()
                        done.resume(returning: task)
                    }
                }
            }
            #expect(task.skippedFirings >= 5)
            #expect(task.firings == 3)
            // Every deadline stays on the start + k × interval grid.
            let seen = deadlines.withLock { $0 }
            #expect(seen.allSatisfy { ($0.nanoseconds - seen[0].nanoseconds) % interval.mainlineNanoseconds == 0 })
            loop.stop()
            await loop.waitUntilStopped()
        }
    }
}
