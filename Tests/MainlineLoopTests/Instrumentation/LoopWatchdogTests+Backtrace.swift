import Atomics
import Dispatch
import Foundation
import Glibc
import MainlineInspection
import MainlineLoop
import Testing

/// A stall of each kind — the loop thread asleep, waiting for a lock, spinning — reported with the site of the job,
/// what the recorder saw before it, and a backtrace of the loop thread that shows where it is stuck.
extension LoopWatchdogTests {
    /// How a job holds the loop until the test releases it.
    enum Hold: String, CaseIterable, Sendable {
        case sleep, lock, spin
    }

    /// Holds the loop in a function whose name the backtrace must show.
    final class Holder: @unchecked Sendable {
        // @unchecked Sendable: `mutex` is a pthread mutex (its own synchronization); `released` is atomic; the
        // semaphores are thread-safe.
        let released = ManagedAtomic(false)
        var mutex = pthread_mutex_t()
        private let mutexTaken = DispatchSemaphore(value: 0)
        private let mutexReleased = DispatchSemaphore(value: 0)

        init() { pthread_mutex_init(&mutex, nil) }
        deinit { pthread_mutex_destroy(&mutex) }

        /// Takes `mutex` on a thread of its own, which keeps it until ``releaseMutex()``: a pthread mutex must be
        /// unlocked by the thread that locked it, and an async test resumes on whichever thread after an `await`.
        /// (Unlocked elsewhere, it stays held by the first thread in ThreadSanitizer's deadlock detector.)
        func takeMutexOnAThreadOfItsOwn() {
            Thread.detachNewThread { [self] in
                pthread_mutex_lock(&mutex)
                mutexTaken.signal()
                mutexReleased.wait()
                pthread_mutex_unlock(&mutex)
            }
            mutexTaken.wait()
        }

        /// Lets the thread of ``takeMutexOnAThreadOfItsOwn()`` unlock the mutex.
        func releaseMutex() { mutexReleased.signal() }

        @inline(never)
        func sleepUntilReleased() {
            // A capture interrupts the sleep (EINTR): sleep again until released.
            while !released.load(ordering: .acquiring) { usleep(1_000) }
        }

        @inline(never)
        func waitForTheLockUntilReleased() {
            pthread_mutex_lock(&mutex)
            pthread_mutex_unlock(&mutex)
        }

        @inline(never)
        func spinUntilReleased() {
            while !released.load(ordering: .acquiring) {}
        }

        func hold(_ kind: Hold) {
            switch kind {
            case .sleep: sleepUntilReleased()
            case .lock: waitForTheLockUntilReleased()
            case .spin: spinUntilReleased()
            }
        }

        static func function(_ kind: Hold) -> String {
            switch kind {
            case .sleep: "sleepUntilReleased"
            case .lock: "waitForTheLockUntilReleased"
            case .spin: "spinUntilReleased"
            }
        }
    }

    @Test(arguments: Hold.allCases)
    func aStallNamesItsSiteCarriesTheEventsBeforeItAndABacktraceOfTheLoopThread(_ kind: Hold) async throws {
        let loop = MainLoop()
        let reports = Reports()
        var watchdog = reports.watchdog()
        // What is checked is the answer, not its speed: on a machine whose cores are all busy the loop thread may wait
        // longer than the default 200 ms for one.
        watchdog.backtraceTimeout = .seconds(5)
        await MainActor.run { loop.instrument(LoopInstrumentation(watchdog: watchdog)) }
        let holder = Holder()
        if kind == .lock { holder.takeMutexOnAThreadOfItsOwn() }

        let slowLine = #line + 1
        loop.post { Self.spin(microseconds: 2_000) }
        let stallLine = #line + 1
        loop.post(label: "hold") { holder.hold(kind) }
        // The watchdog reports the stall (with its backtrace) while the job holds the loop; then release it. On a busy
        // machine the 2 ms job may be reported first (the threshold is 20 ms): wait, report by report, for the hold's.
        // On a thread of its own: a blocked cooperative thread is one of two on this machine.
        await withCheckedContinuation { (reported: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                repeat {
                    reports.stallReported.wait()
                } while !reports.stalls.withLock { $0.contains { $0.label == "hold" } }
                reported.resume()
            }
        }
        holder.released.store(true, ordering: .releasing)
        if kind == .lock { holder.releaseMutex() }
        loop.stop()
        await loop.waitUntilStopped()

        let stall = try #require(reports.stalls.withLock { $0.first { $0.label == "hold" } })
        #expect(stall.label == "hold")
        #expect(stall.site?.location == "MainlineLoopTests/LoopWatchdogTests+Backtrace.swift:\(stallLine)")
        let slow = stall.lastEvents.contains { event in
            if case .slowWork(let work) = event.kind { work.site?.line == slowLine } else { false }
        }
        #expect(slow, "the 2 ms job before the stall is among the recorder's last events")
        let backtrace = try #require(stall.backtrace, "the loop thread answered")
        let symbols = backtrace.frames.compactMap(\.symbol)
        #expect(
            symbols.contains { $0.contains(Holder.function(kind)) },
            "the backtrace shows \(Holder.function(kind)): \(backtrace)"
        )
        // The report was kept, with its backtrace, in the loop's flight recorder.
        #expect(loop.flightRecorder.stallsKept.first { $0.label == "hold" }?.backtrace == backtrace)
    }

    @Test func aWatchdogWhoseBacktraceTimeoutIsZeroReportsTheStallWithoutOne() async throws {
        let loop = MainLoop()
        let reports = Reports()
        var watchdog = reports.watchdog()
        watchdog.backtraceTimeout = .zero
        await MainActor.run { loop.instrument(LoopInstrumentation(watchdog: watchdog)) }

        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post(label: "hold") {
                reports.stallReported.wait()
                done.resume()
            }
        }
        loop.stop()
        await loop.waitUntilStopped()

        let stall = try #require(reports.stalls.withLock { $0.first })
        #expect(stall.label == "hold")
        #expect(stall.backtrace == nil)
    }
}
