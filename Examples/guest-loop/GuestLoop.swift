// guest-loop — Mainline as a guest of an async main.
//
// An `async` main ends in `dispatchMain()`, which gives the main thread to libdispatch, so the loop cannot own
// it. Instead the loop is pumped from the dispatch main queue: guest mode. Everything else is the same as in
// owner mode — posts from other threads, timers, signals, all on the main actor. Run it with:
//
//     swift run --package-path Examples guest-loop

import Mainline

/// State that lives on the loop: only main-actor code touches it.
@MainActor final class Totals {
    var byWorker: [Int: Int] = [:]
}

@main
struct GuestLoop {
    static func main() async {
        let loop = MainLoop.main
        loop.attachAsGuest()  // the async main keeps the main thread; the loop runs on the main queue
        let totals = Totals()

        // Work runs off the loop, on the cooperative pool; results hop onto the loop with post.
        await withTaskGroup(of: Void.self) { group in
            for worker in 1...3 {
                group.addTask {
                    let total = (1...100_000).reduce(0) { $0 &+ $1 * worker }
                    loop.post { totals.byWorker[worker] = total }
                }
            }
        }

        // A timer on the loop reports and stops it; the async main waits for the loop to close.
        loop.post {
            loop.schedule(after: .milliseconds(50)) {
                for (worker, total) in totals.byWorker.sorted(by: { $0.key < $1.key }) {
                    print("worker \(worker): \(total)")
                }
                loop.stop()
            }
        }
        await loop.waitUntilStopped()
        print("guest-loop: stopped cleanly (\(loop.state))")
    }
}
