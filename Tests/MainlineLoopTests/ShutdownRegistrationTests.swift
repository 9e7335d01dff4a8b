import MainlineLoop
import MainlineTesting
import Testing

/// Shutdown hooks: what runs when a loop stops, and in which order.
@MainActor
@Suite("Shutdown hooks")
struct ShutdownRegistrationTests {
    let loop = TestLoop()

    @Test func hooksRunAfterPostedWorkAndSettleBeforeTimersAreCancelled() {
        var log: [String] = []
        let timer = loop.schedule(after: .seconds(60)) { log.append("timer") }
        loop.onShutdown {
            log.append("hook 1, timer scheduled: \(timer.isScheduled)")
            loop.requestSettle(SettleNotification { log.append("settled after hook") })
            #expect(loop.post { log.append("posted from hook") } == false, "posts are refused while draining")
        }
        loop.onShutdown { log.append("hook 2") }
        loop.post {
            log.append("posted")
            loop.requestSettle(SettleNotification { log.append("settled") })
        }
        loop.stop()
        loop.runIteration()
        #expect(
            log == ["posted", "settled", "hook 1, timer scheduled: true", "hook 2", "settled after hook"]
        )
        #expect(timer.isCancelled)
        #expect(loop.isStopped)
    }

    @Test func aCancelledHookDoesNotRun() {
        var ran = false
        let registration = loop.onShutdown { ran = true }
        #expect(registration.isActive)
        registration.cancel()
        #expect(!registration.isActive)
        loop.stop()
        loop.runIteration()
        #expect(!ran)
    }

    @Test func aHookRegisteredOnAStoppedLoopComesBackCancelled() {
        loop.stop()
        loop.runIteration()
        var ran = false
        let registration = loop.onShutdown { ran = true }
        #expect(!registration.isActive)
        #expect(!ran)
    }

    @Test func eachHookRunsOnce() {
        var runs = 0
        loop.onShutdown { runs += 1 }
        loop.stop()
        loop.runUntilIdle()
        loop.runIteration()
        #expect(runs == 1)
    }
}
