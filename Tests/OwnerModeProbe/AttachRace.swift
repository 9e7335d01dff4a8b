// A program that starts threads before `run()`, as the dashboard example does: a thread's post finds the loop idle
// and attaches it as a guest (on that thread) while the main thread calls `run()` and takes the loop over. Whatever
// the interleaving, the owner loop must be woken by the next post from another thread.

import Dispatch
import Foundation

@testable import MainlineLoop

/// How many rounds have finished; read by the watchdog from another thread.
final class RoundCounter: @unchecked Sendable {
    // @unchecked Sendable: `value` is protected by `lock`.
    private let lock = NSLock()
    private var value = 0

    func advance() { lock.withLock { value += 1 } }
    var current: Int { lock.withLock { value } }
}

/// `rounds` times: a new `MainLoop`; a thread posts to it while it is idle (attaching it as a guest from that thread),
/// waits until that post ran, then posts the stop; the main thread calls `run()` as soon as the loop has left idle,
/// so that it takes over while the thread may still be starting the guest. A lost wake-up leaves `run()` blocked
/// forever: the watchdog then reports the round and exits with status 3 (after `PROBE_HANG_SECONDS`, default 10, so
/// that a debugger can be attached first).
@MainActor
func attachRaceRounds(_ rounds: Int) {
    let finished = RoundCounter()
    let hangSeconds = Int(ProcessInfo.processInfo.environment["PROBE_HANG_SECONDS"] ?? "") ?? 10
    Thread.detachNewThread {
        var last = -1
        var stillFor = 0
        while true {
            Thread.sleep(forTimeInterval: 1)
            let now = finished.current
            if now == rounds { return }
            stillFor = now == last ? stillFor + 1 : 0
            last = now
            if stillFor >= hangSeconds {
                let message = "attach-race: round \(now) of \(rounds) hung: the owner loop never ran the second post\n"
                FileHandle.standardError.write(message.data(using: .utf8)!)
                print("hungAtRound=\(now)")
                exit(3)
            }
        }
    }
    for _ in 0..<rounds {
        let loop = MainLoop()
        let firstRan = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            loop.post { firstRan.signal() }  // attaches the idle loop as a guest, from this thread
            firstRan.wait()
            loop.post { loop.stop() }  // reaches the owner loop only through the waker installed last
        }
        // Take over as early as possible, while the thread may still be starting the guest; yielding so that the
        // thread gets the CPU on a busy machine.
        while loop.state == .idle { sched_yield() }
        loop.run()
        finished.advance()
    }
    note("rounds", finished.current)
}
