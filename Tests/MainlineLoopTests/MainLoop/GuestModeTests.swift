import Dispatch
import Foundation
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// Guest mode inside `swift test`: the test runner owns the main thread, the loop is pumped from the main queue.
///
/// Leak checks count the libuv loops and handles of the test's own loop (`_UVResources.live(of:)`), so real main loops
/// in other suites running alongside cannot disturb them. Serialized all the same: the signal tests raise SIGHUP for
/// the whole process, and the flood tests measure timers under load.
@Suite("MainLoop in guest mode", .serialized, .timeLimit(.minutes(5)))
struct GuestModeTests {
    /// Facts every callback records about where it ran.
    @MainActor final class Where {
        var offMainQueue = 0
        var outsideIteration = 0
        let loop: MainLoop

        init(_ loop: MainLoop) { self.loop = loop }

        func check() {
            // "On the loop" is asked of the main queue and the main actor, never of thread identity: in guest mode
            // under Swift Testing the main actor runs on a dispatch worker thread.
            dispatchPrecondition(condition: .onQueue(.main))
            if !loop.isInsideIteration { outsideIteration += 1 }
        }
    }

    @Test func postsFromFourThreadsRunExactlyOnceInProducerOrderInsideTheLoopWhileTimersKeepFiring() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        let producers = 4
        let perProducer = 100_000
        let total = producers * perProducer

        @MainActor final class Flood {
            var next = [Int](repeating: 0, count: 4)
            var outOfOrder = 0
            var ran = 0
            var timerFiringsDuringFlood = 0
        }
        let flood = Flood()
        let here = await Where(loop)

        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post {
                loop.scheduleRepeating(every: .milliseconds(1)) { _ in
                    here.check()
                    if flood.ran > 0 && flood.ran < total { flood.timerFiringsDuringFlood += 1 }
                }
                for producer in 0..<producers {
                    Thread.detachNewThread {
                        for index in 0..<perProducer {
                            let accepted = loop.post {
                                here.check()
                                if flood.next[producer] != index { flood.outOfOrder += 1 }
                                flood.next[producer] = index + 1
                                flood.ran += 1
                                if flood.ran == total { done.resume() }
                            }
                            precondition(accepted, "post refused during the flood")
                        }
                    }
                }
            }
        }
        loop.stop()
        await loop.waitUntilStopped()

        await MainActor.run {
            #expect(flood.ran == total)
            #expect(flood.outOfOrder == 0)
            #expect(flood.timerFiringsDuringFlood > 0, "the 1 ms timer never fired during the flood")
            #expect(here.offMainQueue == 0)
            #expect(here.outsideIteration == 0)
        }
        #expect(loop.state == .stopped)
        #expect(loop.post {} == false)
        #expect(_UVResources.live(of: loop) == _UVResources.Counts())
    }

    @Test func mainQueueBlocksAndMainActorTasksRunOnTheMainActorInSubmissionOrder() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        let count = 2_000
        @MainActor final class Order { var seen: [Int] = [] }
        let order = Order()

        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                for index in 0..<count {
                    if index.isMultiple(of: 2) {
                        DispatchQueue.main.async { MainActor.assumeIsolated { order.seen.append(index) } }
                    } else {
                        Task { @MainActor in order.seen.append(index) }
                    }
                }
                // Loop callbacks interleave with main-queue work: this post runs on the same main actor.
                loop.post { DispatchQueue.main.async { done.resume() } }
            }
        }
        await MainActor.run { #expect(order.seen == Array(0..<count)) }
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func timersFireInDeadlineOrderWithTiesInSchedulingOrder() async {
        let loop = MainLoop()
        @MainActor final class Log { var fired: [String] = [] }
        let log = Log()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post {
                loop.schedule(after: .milliseconds(30)) { log.fired.append("30") }
                loop.schedule(after: .milliseconds(10)) { log.fired.append("10a") }
                loop.schedule(after: .milliseconds(10)) { log.fired.append("10b") }
                let cancelled = loop.schedule(after: .milliseconds(20)) { log.fired.append("20") }
                cancelled.cancel()
                loop.schedule(after: .milliseconds(40)) { done.resume() }
            }
        }
        await MainActor.run { #expect(log.fired == ["10a", "10b", "30"]) }
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func settleRunsAfterTheTriggeringCallbackInTheSameIteration() async {
        let loop = MainLoop()
        @MainActor final class Log { var events: [String] = [] }
        let log = Log()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post {
                let notification = SettleNotification { log.events.append("settled") }
                loop.requestSettle(notification)
                loop.requestSettle(notification)
                log.events.append("callback returned")
                // The next post runs in a later iteration, after this iteration's settle.
                loop.post {
                    log.events.append("next post")
                    done.resume()
                }
            }
        }
        await MainActor.run { #expect(log.events == ["callback returned", "settled", "next post"]) }
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func settleRequestedFromMainQueueWorkOutsideAnIterationIsDelivered() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    _ = loop.requestSettle(SettleNotification { done.resume() })
                }
            }
        }
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func usingAnIdleLoopAttachesItAsAGuest() async {
        let loop = MainLoop()
        #expect(loop.state == .idle)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            #expect(loop.post { done.resume() })
        }
        #expect(loop.state == .guest)
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func stopRunsWhatWasAlreadyPostedThenRefusesPosts() async {
        let loop = MainLoop()
        @MainActor final class Count { var ran = 0 }
        let count = Count()
        let accepted = (0..<1_000).map { _ in loop.post { count.ran += 1 } }
        loop.stop()
        #expect(loop.post { count.ran += 1000 } == false)
        await loop.waitUntilStopped()
        #expect(accepted.allSatisfy { $0 })
        await MainActor.run { #expect(count.ran == 1_000) }
    }

    @Test func stopCancelsTimersAndSignalHandlersAndSettleDeliversPendingNotifications() async {
        let loop = MainLoop()
        @MainActor final class State {
            var timer: ScheduledTask?
            var registration: SignalRegistration?
            var settled = false
        }
        let state = State()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post {
                state.timer = loop.schedule(after: .seconds(3600)) {}
                state.registration = loop.onSignal(.sighup) { _ in }
                loop.requestSettle(SettleNotification { state.settled = true })
                loop.stop()
                done.resume()
            }
        }
        await loop.waitUntilStopped()
        await MainActor.run {
            #expect(state.settled)
            #expect(state.timer?.isCancelled == true)
            #expect(state.registration?.isActive == false)
            #expect(loop.schedule(after: .zero) {}.isCancelled, "a stopped loop hands back cancelled tasks")
            #expect(!loop.requestSettle(SettleNotification {}))
        }
    }

    @Test func signalHandlersRunOnTheLoop() async {
        let loop = MainLoop()
        @MainActor final class Box { var registration: SignalRegistration? }
        let box = Box()
        let here = await Where(loop)
        let received = await withCheckedContinuation { (done: CheckedContinuation<LoopSignal, Never>) in
            loop.post {
                box.registration = loop.onSignal(.sighup) { signal in
                    here.check()
                    box.registration?.cancel()
                    done.resume(returning: signal)
                }
                kill(getpid(), SIGHUP)
            }
        }
        #expect(received == .sighup)
        await MainActor.run { #expect(here.outsideIteration == 0) }
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func aThousandAttachStopCyclesLeakNoHandleNoLoopAndNoObject() async {
        var leaks: [_UVResources.Counts] = []
        final class WeakLoop: @unchecked Sendable { weak var loop: MainLoop? }
        var weakLoops: [WeakLoop] = []
        for cycle in 0..<1_000 {
            let loop = MainLoop()
            loop.attachAsGuest()
            await withCheckedContinuation { (ran: CheckedContinuation<Void, Never>) in
                loop.post {
                    loop.schedule(after: .seconds(60)) {}
                    loop.requestSettle(SettleNotification {})
                    ran.resume()
                }
            }
            if cycle.isMultiple(of: 2) {
                loop.stop()  // from a test thread
            } else {
                loop.post { loop.stop() }  // from the loop itself
            }
            await loop.waitUntilStopped()
            let live = _UVResources.live(of: loop)
            if live != _UVResources.Counts() { leaks.append(live) }
            let weakLoop = WeakLoop()
            weakLoop.loop = loop
            weakLoops.append(weakLoop)
        }
        #expect(leaks.isEmpty, "\(leaks.count) stopped loops left libuv resources behind, first: \(leaks.prefix(3))")
        #expect(weakLoops.allSatisfy { $0.loop == nil }, "a stopped MainLoop is still referenced")
    }

    @Test func stoppingAnIdleLoopRunsWhatWasPostedAndStopsWithoutAttaching() async {
        let loop = MainLoop()
        loop.stop()
        #expect(loop.state == .stopped)
        #expect(loop.post {} == false)
        await loop.waitUntilStopped()
    }
}
