import MainlineLoop
import MainlineTesting
import Testing

/// The settle phase (DESIGN.md §2–3), driven in virtual time through the same core the real loop runs.
@MainActor
@Suite("TestLoop settle phase")
struct TestLoopSettleTests {
    /// Holds a notification whose delivery refers to itself, as the owner of a real one (an event) would.
    @MainActor final class Holder {
        var notification: SettleNotification?
    }

    @Test func aRequestIsNeverDeliveredSynchronouslyAndRepeatedRequestsCoalesceIntoOneDelivery() {
        let loop = TestLoop()
        var deliveries = 0
        let notification = SettleNotification { deliveries += 1 }
        #expect(loop.requestSettle(notification))
        #expect(!loop.requestSettle(notification), "already pending: coalesced")
        #expect(notification.isPending)
        #expect(deliveries == 0)
        loop.runIteration()
        #expect(deliveries == 1)
        #expect(!notification.isPending)
        loop.runUntilIdle()
        #expect(deliveries == 1)
    }

    @Test func settleRunsAfterTheCallbackThatRequestedItWithinTheSameIteration() {
        let loop = TestLoop()
        let log = Log()
        loop.schedule(after: .seconds(1)) {
            loop.requestSettle(SettleNotification { log.add("settled at \(loop.now)") })
            log.add("timer returned")
        }
        loop.advance(by: .seconds(1))
        #expect(log.entries == ["timer returned", "settled at \(LoopInstant.zero + .seconds(1))"])
    }

    @Test func lowerHeightsAreDeliveredFirstWhateverTheRequestOrder() {
        let loop = TestLoop()
        let log = Log()
        let group = SettleNotification(height: 2) { log.add("group") }
        let proxy = SettleNotification(height: 1) { log.add("proxy") }
        let sourceA = SettleNotification(height: 0) { log.add("a") }
        let sourceB = SettleNotification(height: 0) { log.add("b") }
        for notification in [group, proxy, sourceA, sourceB] { loop.requestSettle(notification) }
        loop.runIteration()
        #expect(log.entries == ["a", "b", "proxy", "group"])
    }

    @Test func aHigherRequestMadeDuringDeliveryJoinsTheCurrentRound() {
        // One round per iteration: anything delivered in this iteration was delivered in the same round.
        let loop = TestLoop(budgets: LoopBudgets(settleRoundsPerIteration: 1))
        let log = Log()
        let derived = SettleNotification(height: 1) { log.add("derived") }
        let source = SettleNotification(height: 0) {
            log.add("source")
            loop.requestSettle(derived)
        }
        loop.requestSettle(source)
        loop.runIteration()
        #expect(log.entries == ["source", "derived"])
    }

    @Test func aRequestAtTheSameOrALowerHeightMadeDuringDeliveryWaitsForTheNextRound() {
        let loop = TestLoop(budgets: LoopBudgets(settleRoundsPerIteration: 1))
        let log = Log()
        let sibling = SettleNotification(height: 1) { log.add("sibling") }
        let source = SettleNotification(height: 0) { log.add("source") }
        let derived = SettleNotification(height: 1) {
            log.add("derived")
            loop.requestSettle(source)
            loop.requestSettle(sibling)
        }
        loop.requestSettle(derived)
        loop.runIteration()
        #expect(log.entries == ["derived"])
        #expect(loop.hasPendingWork, "the next round waits for the next iteration when the round budget is spent")
        loop.runIteration()
        #expect(log.entries == ["derived", "source", "sibling"])
    }

    @Test func theNextRoundRunsInTheSameIterationWhenTheBudgetAllows() {
        let loop = TestLoop()
        let log = Log()
        let source = SettleNotification(height: 0) { log.add("source") }
        let derived = SettleNotification(height: 1) {
            log.add("derived")
            loop.requestSettle(source)
        }
        loop.requestSettle(derived)
        loop.runIteration()
        #expect(log.entries == ["derived", "source"])
    }

    @Test func aRequestDuringItsOwnDeliverySchedulesExactlyOneMoreDelivery() {
        let loop = TestLoop()
        var deliveries = 0
        let holder = Holder()
        let notification = SettleNotification {
            deliveries += 1
            if deliveries == 1, let notification = holder.notification {
                #expect(loop.requestSettle(notification))
                #expect(!loop.requestSettle(notification))
            }
        }
        holder.notification = notification
        loop.requestSettle(notification)
        loop.runUntilIdle()
        #expect(deliveries == 2)
    }

    @Test func aSelfRetriggeringNotificationIsBoundedByTheRoundBudgetAndCannotStarveATimer() {
        let rounds = 16
        let loop = TestLoop(budgets: LoopBudgets(settleRoundsPerIteration: rounds))
        var deliveries = 0
        var deliveriesWhenTheTimerFired: Int?
        let holder = Holder()
        let forever = SettleNotification {
            deliveries += 1
            loop.requestSettle(holder.notification!)
        }
        holder.notification = forever
        loop.requestSettle(forever)
        loop.runIteration()
        #expect(deliveries == rounds)
        loop.schedule(after: .zero) {
            deliveriesWhenTheTimerFired = deliveries
            forever.cancel()
        }
        loop.runUntilIdle()
        #expect(deliveriesWhenTheTimerFired == rounds, "the timer fired in the very next iteration")
        #expect(deliveries == rounds)
        #expect(!loop.hasPendingWork)
    }

    @Test func runUntilIdleReportsANotificationThatNeverLetsTheLoopGoIdle() {
        let loop = TestLoop()
        let diagnostics = DiagnosticsRecorder()
        let holder = Holder()
        let forever = SettleNotification { loop.requestSettle(holder.notification!) }
        holder.notification = forever
        loop.requestSettle(forever)
        let iterations = diagnostics.record { loop.runUntilIdle(maxIterations: 5) }
        #expect(iterations == 5)
        #expect(diagnostics.kinds == [.loopNeverIdle])
        forever.cancel()
    }

    @Test func cancelWithdrawsAPendingDeliveryAndARequestAfterCancelDeliversOnce() {
        let loop = TestLoop()
        var deliveries = 0
        let notification = SettleNotification { deliveries += 1 }
        loop.requestSettle(notification)
        notification.cancel()
        notification.cancel()
        #expect(!notification.isPending)
        loop.runUntilIdle()
        #expect(deliveries == 0)
        loop.requestSettle(notification)
        notification.cancel()
        #expect(loop.requestSettle(notification))
        loop.runUntilIdle()
        #expect(deliveries == 1)
    }

    @Test func aNegativeHeightIsReportedAndDeliveredAtHeightZero() {
        let loop = TestLoop()
        let diagnostics = DiagnosticsRecorder()
        let log = Log()
        let negative = SettleNotification(height: -3) { log.add("negative") }
        let derived = SettleNotification(height: 1) { log.add("derived") }
        loop.requestSettle(derived)
        diagnostics.record { loop.requestSettle(negative) }
        loop.runIteration()
        #expect(diagnostics.kinds == [.negativeSettleHeight])
        #expect(negative.height == 0)
        #expect(log.entries == ["negative", "derived"])
    }

    @Test func aNotificationRequestedFromAnotherThreadThroughPostIsDeliveredInThatIteration() async {
        let loop = TestLoop()
        let log = Log()
        let notification = SettleNotification { log.add("settled") }
        let accepted = await Task.detached {
            loop.post {
                log.add("posted"); loop.requestSettle(notification)
            }
        }.value
        #expect(accepted)
        loop.runIteration()
        #expect(log.entries == ["posted", "settled"])
    }
}
