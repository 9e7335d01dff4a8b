// mainline-owner-probe — runs MainLoop.main in owner mode and reports what happened, one `key=value` per line.
//
// Owner mode needs the process main thread, which the test runner owns, so `OwnerModeTests` launches this
// program as a subprocess (`mainline-owner-probe <scenario>`) and asserts on its report. Each scenario ends by
// stopping the loop; the report is printed after `run()` returned.

import CMainlineShims
import Dispatch
import Foundation

@testable import MainlineLoop

let loop = MainLoop.main
var report: [(String, String)] = []
@MainActor func note(_ key: String, _ value: Any) { report.append((key, "\(value)")) }

/// Facts every callback checks about where it runs.
@MainActor final class Where {
    var offMainThread = 0
    var outsideIteration = 0

    func check() {
        if !mainline_is_main_thread() { offMainThread += 1 }
        if !loop.isInsideIteration { outsideIteration += 1 }
    }
}
let here = Where()

let scenario = CommandLine.arguments.dropFirst().first ?? "help"
switch scenario {
case "flood":
    // 4 producer threads × 100,000 posts while a 1 ms timer repeats: every post runs once, in per-producer
    // order, on the main thread, inside the loop; the timer keeps firing during the flood.
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
    loop.scheduleRepeating(every: .milliseconds(1)) { _ in
        here.check()
        if flood.ran > 0 && flood.ran < total { flood.timerFiringsDuringFlood += 1 }
    }
    let start = DispatchSemaphore(value: 0)
    for producer in 0..<producers {
        Thread.detachNewThread {
            start.wait()
            for index in 0..<perProducer {
                let accepted = loop.post {
                    here.check()
                    if flood.next[producer] != index { flood.outOfOrder += 1 }
                    flood.next[producer] = index + 1
                    flood.ran += 1
                    if flood.ran == total { loop.stop() }
                }
                precondition(accepted, "post refused during the flood")
            }
        }
    }
    loop.post { for _ in 0..<producers { start.signal() } }
    loop.run()
    MainActor.assumeIsolated {
        note("posted", total)
        note("ran", flood.ran)
        note("outOfOrder", flood.outOfOrder)
        note("timerFiringsDuringFlood", flood.timerFiringsDuringFlood)
    }

case "main-queue":
    // DispatchQueue.main blocks and @MainActor tasks submitted from another thread run inside the loop, in one
    // FIFO; `await MainActor.run` from a task runs inside the loop too.
    let count = 2_000
    @MainActor final class Order { var seen: [Int] = []; var mainActorRuns = 0 }
    let order = Order()
    Thread.detachNewThread {
        for index in 0..<count {
            if index.isMultiple(of: 2) {
                DispatchQueue.main.async {
                    MainActor.assumeIsolated {
                        here.check(); order.seen.append(index)
                    }
                }
            } else {
                Task { @MainActor in
                    here.check(); order.seen.append(index)
                }
            }
        }
        Task.detached {
            for _ in 0..<100 {
                await MainActor.run {
                    here.check(); order.mainActorRuns += 1
                }
            }
            await MainActor.run { loop.stop() }
        }
    }
    loop.run()
    MainActor.assumeIsolated {
        note("submitted", count)
        note("ran", order.seen.count)
        note("inSubmissionOrder", order.seen == Array(0..<count))
        note("mainActorRuns", order.mainActorRuns)
    }

case "idle":
    // An idle body registered from another thread runs on the main thread, inside the loop (libuv's prepare phase),
    // after a whole burst of posts; a body that re-registers itself runs once per iteration and does not spin the
    // loop: between a 100 ms timer and the stop 100 ms after it, it gets exactly the iterations those timers give it.
    @MainActor final class Idle {
        var ran = 0
        var ranAtIdle = -1
        var reRuns = 0

        func reRegister() {
            loop.whenIdle {
                here.check()
                self.reRuns += 1
                self.reRegister()
            }
        }
    }
    let idle = Idle()
    let total = 20_000
    loop.budgets = LoopBudgets(postsPerIteration: 64)
    Thread.detachNewThread {
        let everythingQueued = DispatchSemaphore(value: 0)
        loop.post {
            everythingQueued.wait()
            idle.ran += 1
        }
        for _ in 1..<total {
            loop.post {
                here.check()
                idle.ran += 1
            }
        }
        loop.whenIdle {
            here.check()
            idle.ranAtIdle = idle.ran
            idle.reRegister()
            // The stop is scheduled by the first timer, not beside it: on a busy machine a process descheduled for
            // 100 ms found both due in one iteration, and the body never got the iteration between them.
            loop.schedule(after: .milliseconds(100)) {
                loop.schedule(after: .milliseconds(100)) { loop.stop() }
            }
        }
        everythingQueued.signal()
    }
    loop.run()
    MainActor.assumeIsolated {
        note("posted", total)
        note("ranAtIdle", idle.ranAtIdle)
        note("reRuns", idle.reRuns)
    }

case "signal":
    // onSignal handlers run on the loop; SIGINT stops it cleanly.
    @MainActor final class Signals { var handled: [String] = [] }
    let signals = Signals()
    loop.onSignal(.sigint) { signal in
        here.check()
        signals.handled.append("\(signal)")
        loop.stop()
    }
    loop.post {
        Thread.detachNewThread { kill(getpid(), SIGINT) }
    }
    loop.run()
    MainActor.assumeIsolated { note("handled", signals.handled.joined(separator: ",")) }

case "sigusr1-snapshot":
    // What a service's SIGUSR1 does: the handler takes the loop's snapshot on the loop; a thread that is not the
    // loop's awaits one (the hop runs as main-queue work, which owner mode drains inside an iteration).
    @MainActor final class Seen { var inHandler: LoopSnapshot?; var fromTask: LoopSnapshot? }
    let seen = Seen()
    loop.onSignal(.sigusr1) { _ in
        here.check()
        seen.inHandler = loop.snapshot()
        Task.detached {
            let snapshot = await loop.snapshot()
            await MainActor.run {
                seen.fromTask = snapshot
                loop.stop()
            }
        }
    }
    loop.post {
        loop.schedule(after: .seconds(60), label: "far") {}
        Thread.detachNewThread { kill(getpid(), SIGUSR1) }
    }
    loop.run()
    MainActor.assumeIsolated {
        for (name, snapshot) in [("handler", seen.inHandler), ("task", seen.fromTask)] {
            note("\(name)State", snapshot.map { "\($0.state)" } ?? "none")
            note("\(name)Phase", snapshot.map { "\($0.phase)" } ?? "none")
            note("\(name)Timers", snapshot.map { $0.timers.map { $0.label ?? "-" }.joined(separator: ",") } ?? "none")
        }
    }

case "sigterm-drain":
    // Owner mode's graceful shutdown: SIGTERM (through stopOnTerminationSignals) drains the loop the way
    // MainLoopService does: work already posted runs, then settle, then the shutdown hooks, then handles close.
    @MainActor final class Drain { var log: [String] = []; var ran = 0 }
    let drain = Drain()
    // Handlers run in registration order: this one posts work the next one's stop() leaves queued for the drain.
    loop.onSignal(.sigterm) { _ in
        for index in 0..<100 {
            _ = loop.post {
                drain.ran += 1
                if index == 99 { loop.requestSettle(SettleNotification { drain.log.append("settled") }) }
            }
        }
    }
    loop.stopOnTerminationSignals()
    loop.onShutdown {
        here.check()
        drain.log.append("hook after \(drain.ran) posts, post refused: \(!loop.post {})")
    }
    loop.post {
        Thread.detachNewThread { kill(getpid(), SIGTERM) }
    }
    loop.run()
    MainActor.assumeIsolated { note("drainLog", drain.log.joined(separator: ";")) }

case "burst-memory":
    MainActor.assumeIsolated { burstMemoryOnTheMainLoop(loop) }

case "event-loop-burst-memory":
    burstMemoryOnAnEventLoop()

case "sigterm-drain-deadline":
    MainActor.assumeIsolated { sigtermWithABacklogAndADrainDeadline(loop) }

case "attach-race":
    // Threads started before run() attach the loop as a guest while the main thread takes it over (AttachRace.swift).
    let rounds = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1_000
    MainActor.assumeIsolated { attachRaceRounds(rounds) }
    loop.post { loop.stop() }
    loop.run()

case "run-off-main-thread":
    // Misuse: run() on another thread traps with a message that says what to do instead.
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        loop.run()
        done.signal()
    }
    done.wait()

case "run-in-task":
    // Misuse: run() from an async context (here a main-actor task, on the main thread, inside the loop) traps.
    Task { @MainActor in loop.run() }
    loop.run()

default:
    let usage = """
        usage: mainline-owner-probe flood|main-queue|idle|signal|sigterm-drain|burst-memory|event-loop-burst-memory|\
        sigterm-drain-deadline|run-off-main-thread|run-in-task|sigusr1-snapshot|attach-race [rounds]

        """
    FileHandle.standardError.write(usage.data(using: .utf8)!)
    exit(64)
}

// Common checks after run() returned: the loop is stopped, refuses posts, and closed everything it opened.
MainActor.assumeIsolated {
    note("offMainThread", here.offMainThread)
    note("outsideIteration", here.outsideIteration)
}
note("state", loop.state)
note("threadSanitized", mainline_is_thread_sanitized() != 0)
note("postAfterStop", loop.post {})
let live = _UVResources.live
note("liveLoops", live.loops)
note("liveHandles", live.handles)
for (key, value) in report { print("\(key)=\(value)") }
