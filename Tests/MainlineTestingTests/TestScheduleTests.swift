import Foundation
import MainlineLoop
import MainlineTesting
import Testing

/// A test loop's schedule: which ready item runs next where the package's rules allow either order.
@MainActor
@Suite("TestLoop schedules")
struct TestScheduleTests {
    /// Two timers due at one instant, as `schedule` orders them.
    static func timerOrder(_ schedule: TestSchedule) -> [String] {
        let loop = TestLoop(schedule: schedule)
        var log: [String] = []
        loop.schedule(after: .seconds(1)) { log.append("a") }
        loop.schedule(after: .seconds(1)) { log.append("b") }
        loop.advance(by: .seconds(1))
        return log
    }

    @Test func fifoRunsTimersDueAtOneInstantInSchedulingOrderAsTheRealLoopDoes() {
        for _ in 0..<5 { #expect(Self.timerOrder(.fifo) == ["a", "b"]) }
        let schedule = TestSchedule.fifo
        _ = Self.timerOrder(schedule)
        #expect(schedule.choices == [0])
        #expect(schedule.events.count == 2)
    }

    @Test func randomSchedulesFireTimersDueAtOneInstantInBothOrdersAndEachSeedAlwaysInTheSameOne() {
        var orders = Set<[String]>()
        for seed: UInt64 in 0..<32 {
            let order = Self.timerOrder(.random(seed: seed))
            #expect(Self.timerOrder(.random(seed: seed)) == order, "seed \(seed) chose differently twice")
            orders.insert(order)
        }
        #expect(orders == [["a", "b"], ["b", "a"]])
    }

    @Test func pctSchedulesFireTimersDueAtOneInstantInBothOrders() {
        let orders = Set((UInt64(0)..<32).map { Self.timerOrder(.pct(seed: $0, depth: 2)) })
        #expect(orders == [["a", "b"], ["b", "a"]])
    }

    @Test func aTimerCancelledByOneFiredAtTheSameInstantNeverFires() {
        for seed: UInt64 in 0..<16 {
            let loop = TestLoop(schedule: .random(seed: seed))
            var fired: [String] = []
            var other: ScheduledTask?
            let first = loop.schedule(after: .seconds(1)) {
                fired.append("first")
                other?.cancel()
            }
            other = loop.schedule(after: .seconds(1)) {
                fired.append("second")
                first.cancel()
            }
            loop.advance(by: .seconds(1))
            #expect(fired.count == 1, "seed \(seed): \(fired)")
            #expect(loop.scheduledTimerCount == 0)
        }
    }

    /// The settle notifications of one height, delivered as `schedule` orders them.
    static func settleOrder(_ schedule: TestSchedule) -> [String] {
        let loop = TestLoop(schedule: schedule)
        var log: [String] = []
        let notifications = ["x", "y", "z"].map { name in SettleNotification(height: 1) { log.append(name) } }
        let source = SettleNotification(height: 0) { log.append("source") }
        for notification in notifications { loop.requestSettle(notification) }
        loop.requestSettle(source)
        loop.runUntilIdle()
        return log
    }

    @Test func settleNotificationsOfOneHeightAreDeliveredInTheSchedulesOrderAndLowerHeightsFirst() {
        #expect(Self.settleOrder(.fifo) == ["source", "x", "y", "z"])
        let orders = Set((UInt64(0)..<64).map { Self.settleOrder(.random(seed: $0)) })
        #expect(orders.allSatisfy { $0.first == "source" && Set($0) == ["source", "x", "y", "z"] })
        #expect(orders.count == 6, "every order of x, y and z: \(orders)")
    }

    /// Posts 0..<count on `loop` from `threads` threads alive at once (each its own producer), then runs the loop.
    static func postsFromThreads(_ loop: TestLoop, threads: Int, count: Int) -> [Int] {
        let lines = ProducerGate(count: threads)
        let received = Received()
        for producer in 0..<threads {
            Thread.detachNewThread {
                for value in 0..<count {
                    loop.post { received.values.append(producer * 1000 + value) }
                }
                lines.arriveAndWait()
            }
        }
        lines.waitForAll()
        loop.runUntilIdle()
        lines.release()
        return received.values
    }

    @Test func postsFromDifferentThreadsInterleaveButEachThreadsPostsRunInPostingOrder() {
        var interleavings = Set<[Int]>()
        for seed: UInt64 in 0..<8 {
            let loop = TestLoop(schedule: .random(seed: seed))
            let values = Self.postsFromThreads(loop, threads: 2, count: 20)
            #expect(values.count == 40)
            for producer in 0..<2 {
                let own = values.filter { $0 / 1000 == producer }
                #expect(own == (0..<20).map { producer * 1000 + $0 }, "seed \(seed): a producer's posts reordered")
            }
            // Not just the two producers' runs one after the other.
            let switches = zip(values, values.dropFirst()).count { $0 / 1000 != $1 / 1000 }
            #expect(switches > 1, "seed \(seed): \(values)")
            interleavings.insert(values)
        }
        #expect(interleavings.count > 1)
    }

    @Test func postsFromOneThreadStayInPostingOrderUnderEverySchedule() {
        for seed: UInt64 in 0..<8 {
            let loop = TestLoop(schedule: .pct(seed: seed))
            var values: [Int] = []
            for value in 0..<10 { loop.post { values.append(value) } }
            loop.runUntilIdle()
            #expect(values == Array(0..<10))
        }
    }

    @Test func aReplayLineMakesTheSameChoicesAndRunsTheSameItems() throws {
        // The first seed whose order is not the real loop's.
        let fifoOrder = Self.settleOrder(.fifo)
        let seed = try #require((UInt64(0)..<64).first { Self.settleOrder(.random(seed: $0)) != fifoOrder })
        let schedule = TestSchedule.random(seed: seed)
        let order = Self.settleOrder(schedule)
        #expect(schedule.replayLine.hasPrefix("mainline-schedule/1 random seed=\(seed) choices="))
        let replayed = try TestSchedule(replaying: schedule.replayLine)
        #expect(Self.settleOrder(replayed) == order)
        #expect(replayed.choices == schedule.choices)
        #expect(replayed.events == schedule.events)
        // The recorded choices alone decide, whatever the line's strategy and seed.
        let choices = schedule.choices.map(String.init).joined(separator: ",")
        let fifo = try TestSchedule(replaying: "mainline-schedule/1 fifo seed=0 choices=\(choices)")
        #expect(Self.settleOrder(fifo) == order)
        let loop = try TestLoop(replaying: "mainline-schedule/1 pct(3) seed=1 choices=1")
        #expect(loop.schedule?.strategy == .pct(depth: 3))
    }

    @Test func aLineThatIsNotAReplayLineThrowsAnErrorNamingWhatIsWrong() {
        #expect(throws: TestSchedule.ReplayLineError.self) { try TestSchedule(replaying: "seed 7") }
        do {
            _ = try TestSchedule(replaying: "mainline-schedule/1 random seed=x choices=-")
            Issue.record("accepted a seed that is not a number")
        } catch {
            #expect(error.problem == "the seed")
        }
        do {
            _ = try TestSchedule(replaying: "mainline-schedule/1 lifo seed=1 choices=-")
            Issue.record("accepted an unknown strategy")
        } catch {
            #expect(error.problem == "unknown strategy \"lifo\"")
        }
    }
}

/// Values appended on the main actor by posts made from other threads.
final class Received: @unchecked Sendable {
    // @unchecked Sendable: `values` is touched only on the main actor (the loop's posts, then the test).
    var values: [Int] = []
}

/// Producer threads arrive here and wait until the test lets them go, so that they are alive at once (distinct
/// threads) while the loop runs. Thread-safe.
final class ProducerGate: @unchecked Sendable {
    // @unchecked Sendable: `arrived` and `released` are protected by `condition`.
    private let condition = NSCondition()
    private let count: Int
    private var arrived = 0
    private var released = false

    init(count: Int) { self.count = count }

    func arriveAndWait() {
        condition.lock()
        arrived += 1
        condition.broadcast()
        while !released { condition.wait() }
        condition.unlock()
    }

    func waitForAll() {
        condition.lock()
        while arrived < count { condition.wait() }
        condition.unlock()
    }

    func release() {
        condition.lock()
        released = true
        condition.broadcast()
        condition.unlock()
    }
}
