// hello-loop — a first Mainline program in owner mode.
//
// Worker threads post their progress into the main loop, a repeating timer ticks, and Ctrl-C (SIGINT) stops
// the loop cleanly. Run it with:
//
//     swift run --package-path Examples hello-loop              # runs until Ctrl-C
//     swift run --package-path Examples hello-loop --seconds 3  # stops itself after 3 seconds
//     swift run --package-path Examples hello-loop --help       # what it shows, its flags
//
// This file is a synchronous `main` (no top-level `await`), which is what owner mode needs: `run()` takes the
// process main thread and drains the dispatch main queue inside the loop.

import Dispatch
import Foundation
import Mainline

// Parses the command line (`--help` prints the usage; a bad flag exits 64 with a message naming it), then calls
// `HelloLoop.run()` synchronously, still on the main thread and outside any task: that is where the loop runs.
HelloLoop.main()

// State that lives on the loop. Only main-actor code touches it; other threads post.
@MainActor final class Progress {
    var finishedSteps = 0
    var ticks = 0
}

/// The program, once the command line is parsed: workers and a timer report into the loop until it stops.
@MainActor func helloLoop(seconds: Int?) {
    let loop = MainLoop.main
    let progress = Progress()

    // `--seconds N` stops the loop after N seconds, for scripts and CI.
    if let seconds {
        loop.schedule(after: .seconds(seconds)) {
            print("\(seconds) s elapsed: stopping")
            loop.stop()
        }
    }

    // Three workers on their own threads. They never touch `progress`: they post closures into the loop.
    let workers = 3
    let stepsPerWorker = 4
    for worker in 1...workers {
        Thread.detachNewThread {
            for step in 1...stepsPerWorker {
                Thread.sleep(forTimeInterval: 0.15 * Double(worker))
                let accepted = loop.post {
                    progress.finishedSteps += 1
                    print("worker \(worker): step \(step)/\(stepsPerWorker) (total \(progress.finishedSteps))")
                }
                if !accepted { return }  // the loop has stopped: nothing more to report
            }
        }
    }

    // Code written for the main queue keeps working: it runs inside the loop too.
    DispatchQueue.main.async { print("DispatchQueue.main block ran inside the loop") }
    Task { @MainActor in print("Task { @MainActor } ran inside the loop") }

    loop.scheduleRepeating(every: .milliseconds(500)) { _ in
        progress.ticks += 1
        print("tick \(progress.ticks)")
    }

    loop.onSignal(.sigint) { signal in
        print("\(signal): stopping")
        loop.stop()
    }

    print("hello-loop: running (Ctrl-C to stop)")
    loop.run()  // owner mode: runs libuv on the main thread until stop()
    print("stopped cleanly after \(progress.ticks) ticks and \(progress.finishedSteps) worker steps")
}
