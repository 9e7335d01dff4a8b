import Dispatch
import MainlineLoop
import NIOCore

/// 100,000 one-shot timers with deadlines spread over 0–50 ms, scheduled from inside the loop.
enum TimerWorkload {
    static let count = 100_000
    static let spread: Int64 = 50_000_000

    /// The delays, in nanoseconds: uniformly spread over `0 ..< spread`, in a fixed pseudo-random order (the same
    /// for every peer and every run), so that the timer heaps see inserts in no particular order.
    static let delays: [Int64] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            // SplitMix64.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Int64(z % UInt64(spread))
        }
    }()

    /// On the main actor: schedules every timer on Mainline's main loop, timing the scheduling alone.
    @MainActor
    static func scheduleOnMainline() {
        let loop = MainLoop.main
        let start = DispatchTime.now().uptimeNanoseconds
        for delay in delays {
            loop.schedule(after: .nanoseconds(delay)) { timerSink.tick() }
        }
        timerSink.elapsedNanoseconds = DispatchTime.now().uptimeNanoseconds - start
    }

    /// On the NIO loop: schedules every timer with `scheduleTask(in:)`, timing the scheduling alone.
    static func scheduleOnNIO() {
        let loop = nioLoop
        precondition(loop.inEventLoop, "schedule the NIO timers from inside the loop, as Mainline's are")
        let start = DispatchTime.now().uptimeNanoseconds
        for delay in delays {
            loop.scheduleTask(in: .nanoseconds(delay)) { timerSink.tick() }
        }
        timerSink.elapsedNanoseconds = DispatchTime.now().uptimeNanoseconds - start
    }
}
