// Scenarios about bursts of posts: the memory a burst leaves behind, and a bounded drain at shutdown.

import CMainlineShims
import Dispatch
import Foundation

@testable import MainlineLoop

/// The process's resident memory, in bytes (`VmRSS` in `/proc/self/status`).
func residentMemory() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1_024
}

/// Memory figures at one moment: resident (what the system sees) and in use (what the allocator has handed out).
@MainActor
func noteMemory(_ name: String) {
    note("\(name).resident", residentMemory())
    note("\(name).inUse", mainline_heap_in_use())
}

/// How big a burst is: 8 producer threads × 250,000 posts (2,000,000 closures, about 130 MB queued).
let burstProducers = 8
let burstPerProducer = 250_000
let burstTotal = burstProducers * burstPerProducer

/// Posts a burst from `burstProducers` threads through `post` and returns once every post was accepted.
func postBurst(_ post: @escaping @Sendable () -> Bool) {
    let group = DispatchGroup()
    for _ in 0..<burstProducers {
        group.enter()
        Thread.detachNewThread {
            for _ in 0..<burstPerProducer { precondition(post(), "post refused during the burst") }
            group.leave()
        }
    }
    group.wait()
}

/// Two bursts into the main loop, each posted while the loop is blocked: reports memory before the first
/// (`baseline`), with the first queued (`peak`), once it has run (`after`), and once a second one has run
/// (`second`), plus how many posts ran.
@MainActor
func burstMemoryOnTheMainLoop(_ loop: MainLoop) {
    let bursts = MainLoopBursts(loop: loop)
    loop.post { bursts.burst(1) }
    loop.run()
    note("ran", bursts.ran)
}

/// The main-loop half of `burstMemoryOnTheMainLoop`: posts from the loop itself, so it lives on the main actor.
@MainActor
final class MainLoopBursts {
    let loop: MainLoop
    var ran = 0

    init(loop: MainLoop) { self.loop = loop }

    func burst(_ round: Int) {
        if round == 1 { noteMemory("baseline") }
        // Blocks the loop until the whole burst is queued.
        postBurst { [self, loop] in
            loop.post { self.ranOne(in: round) }
        }
        if round == 1 { noteMemory("peak") }
    }

    private func ranOne(in round: Int) {
        ran += 1
        guard ran == round * burstTotal else { return }
        // The next post phase finds the burst's batch done and releases its storage; measure after it.
        loop.post {
            noteMemory(round == 1 ? "after" : "second")
            if round == 1 { self.loop.post { self.burst(2) } } else { self.loop.stop() }
        }
    }
}

/// The same two bursts into an `EventLoop` whose thread is blocked while each is posted.
func burstMemoryOnAnEventLoop() {
    let eventLoop = EventLoop(name: "burst")
    let ran = ManagedCounter()
    func burst(_ round: Int) {
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        eventLoop.post { release.wait() }
        postBurst {
            eventLoop.post {
                guard ran.increment() == round * burstTotal else { return }
                eventLoop.post { done.signal() }
            }
        }
        if round == 1 { MainActor.assumeIsolated { noteMemory("peak") } }
        release.signal()
        done.wait()
    }
    MainActor.assumeIsolated { noteMemory("baseline") }
    burst(1)
    MainActor.assumeIsolated { noteMemory("after") }
    burst(2)
    MainActor.assumeIsolated { noteMemory("second") }
    eventLoop.stopAndWait()
    MainActor.assumeIsolated { note("ran", ran.value) }
    loop.stop()  // the common checks expect the main loop stopped
}

/// SIGTERM with a drain deadline while a backlog that would take about 10 s waits: the loop runs what it can until
/// the deadline, releases the rest unrun, reports it, and stops. Reports `queued`, `ran` and `discarded`.
@MainActor
func sigtermWithABacklogAndADrainDeadline(_ loop: MainLoop) {
    @MainActor final class Counts { var ran = 0 }
    let counts = Counts()
    let queued = 1_000_000
    loop.onSignal(.sigterm) { _ in
        for _ in 0..<queued {
            _ = loop.post {
                // About 10 µs of work each.
                let start = DispatchTime.now().uptimeNanoseconds
                while DispatchTime.now().uptimeNanoseconds - start < 10_000 {}
                counts.ran += 1
            }
        }
    }
    loop.stopOnTerminationSignals(drainDeadline: .milliseconds(200))
    loop.post { Thread.detachNewThread { kill(getpid(), SIGTERM) } }
    loop.run()
    note("queued", queued)
    note("ran", counts.ran)
    note("discarded", loop.core.discardedAtShutdown)
}

/// A counter for posts that run on an event loop's thread.
final class ManagedCounter: @unchecked Sendable {
    // @unchecked Sendable: `count` is protected by `lock`.
    private let lock = NSLock()
    private var count = 0

    /// Adds one; returns the new count.
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
