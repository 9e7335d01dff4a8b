import MainlineLoop
import MainlineTesting
import Testing

/// Signals and stop on a `TestLoop`: the same rules `MainLoop` follows, stepped by hand.
@MainActor
@Suite("TestLoop signals and stop")
struct TestLoopLifecycleTests {
    @Test func raisedSignalsRunTheirHandlersAtTheNextStepInRegistrationOrder() {
        let loop = TestLoop()
        var log: [String] = []
        loop.onSignal(.sighup) { signal in log.append("first \(signal)") }
        loop.onSignal(.sighup) { signal in log.append("second \(signal)") }
        loop.onSignal(.sigterm) { _ in log.append("sigterm") }
        #expect(loop.raise(.sighup))
        #expect(log.isEmpty)
        loop.runUntilIdle()
        #expect(log == ["first SIGHUP", "second SIGHUP"])
    }

    @Test func aHandlerCanCancelItsRegistrationFromInsideItself() {
        let loop = TestLoop()
        var count = 0
        var registration: SignalRegistration?
        registration = loop.onSignal(.sigint) { _ in
            count += 1
            registration?.cancel()
        }
        loop.raise(.sigint)
        loop.raise(.sigint)
        loop.runUntilIdle()
        #expect(count == 1)
        #expect(registration?.isActive == false)
    }

    @Test func stopRunsWhatWasPostedSettlesThenCancelsTimersAndSignalHandlers() {
        let loop = TestLoop()
        var log: [String] = []
        let timer = loop.schedule(after: .seconds(60)) { log.append("timer") }
        let registration = loop.onSignal(.sigterm) { _ in log.append("signal") }
        loop.post {
            log.append("posted before stop")
            loop.requestSettle(SettleNotification { log.append("settled") })
        }
        loop.stop()
        loop.stop()
        #expect(!loop.post { log.append("posted after stop") })
        #expect(!loop.raise(.sigterm))
        #expect(!loop.isStopped, "nothing happens until the test steps the loop")
        loop.runUntilIdle()
        #expect(loop.isStopped)
        #expect(log == ["posted before stop", "settled"])
        #expect(timer.isCancelled)
        #expect(!registration.isActive)
        loop.advance(by: .seconds(120))
        #expect(log == ["posted before stop", "settled"])
        #expect(!loop.hasPendingWork)
    }

    @Test func aStoppedLoopRefusesNewTimersSettleRequestsAndSignalHandlers() {
        let loop = TestLoop()
        loop.stop()
        loop.runUntilIdle()
        var fired = false
        let task = loop.schedule(after: .zero) { fired = true }
        #expect(task.isCancelled)
        #expect(!loop.requestSettle(SettleNotification {}))
        #expect(!loop.onSignal(.sighup) { _ in }.isActive)
        loop.advance(by: .seconds(1))
        #expect(!fired)
    }

    @Test func workPostedWhileStoppingStillRunsExactlyOnce() {
        let loop = TestLoop()
        var ran = 0
        loop.post {
            ran += 1
            loop.stop()
        }
        loop.post { ran += 1 }
        loop.runUntilIdle()
        #expect(ran == 2)
        #expect(loop.isStopped)
    }
}
