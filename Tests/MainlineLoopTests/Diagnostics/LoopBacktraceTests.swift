import Atomics
import CMainlineShims
import Dispatch
import MainlineInspection
import MainlineLoop
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Captures of real threads (sleeping, waiting for a lock, spinning, computing, gone) from the test's thread.
///
/// Serialized: the load test keeps both cores busy, which would slow every other case down.
///
/// Under ThreadSanitizer the sanitizer's handler receives the signal and runs the capture's handler at once when the
/// thread is blocked in a call it intercepts (a sleep, a lock), or at the thread's next atomic operation or intercepted
/// call. So every case answers there too, except a loop with neither, which must answer `nil` (and carry on).
@Suite("LoopBacktrace", .serialized)
struct LoopBacktraceTests {
    static let isThreadSanitized = mainline_is_thread_sanitized() != 0

    // The functions the captures must find. `@inline(never)` and internal (a private function's name carries a file
    // discriminator).

    /// Sleeps a second at a time until released, counting sleeps cut short by a signal in `progress`.
    @inline(never)
    static func sleepUntilReleased(_ subject: SubjectThread) {
        subject.enter()
        while !subject.isReleased {
            var second = timespec(tv_sec: 1, tv_nsec: 0)
            if nanosleep(&second, nil) != 0 && errno == EINTR {
                subject.progress.wrappingIncrement(ordering: .relaxed)
            }
        }
    }

    /// The same as `sleepUntilReleased`, under another name: for telling two threads' backtraces apart.
    @inline(never)
    static func sleepElsewhereUntilReleased(_ subject: SubjectThread) {
        subject.enter()
        while !subject.isReleased {
            var second = timespec(tv_sec: 1, tv_nsec: 0)
            if nanosleep(&second, nil) != 0 && errno == EINTR {
                subject.progress.wrappingIncrement(ordering: .relaxed)
            }
        }
    }

    /// Waits for `lock`, which the test holds; `progress` becomes 1 once it has it.
    @inline(never)
    static func waitForTheTestsLock(_ subject: SubjectThread, _ lock: _Lock) {
        subject.enter()
        lock.lock()
        subject.progress.store(1, ordering: .relaxed)
        lock.unlock()
    }

    /// Spins on an atomic load, with no system call, until released.
    @inline(never)
    static func spinUntilReleased(_ subject: SubjectThread) {
        subject.enter()
        let released = subject.released
        var spins = 0
        while !released.load(ordering: .relaxed) {
            spins &+= 1
        }
        subject.progress.store(spins, ordering: .relaxed)
    }

    /// Spins reading `isReleased`, a property whose getter calls a libswiftCore leaf function that has no unwind
    /// information (`_getUnsafePointerToStoredProperties`): about one capture in a hundred interrupts it there, where
    /// the unwinder stops and the handler's frame-pointer walk must take over.
    @inline(never)
    static func spinReadingAPropertyUntilReleased(_ subject: SubjectThread) {
        subject.enter()
        var spins = 0
        while !subject.isReleased {
            spins &+= 1
        }
        subject.progress.store(spins, ordering: .relaxed)
    }

    /// Computes for `rounds` rounds touching no shared memory: no atomic operation, no call ThreadSanitizer
    /// intercepts. The result goes to `progress`.
    @inline(never)
    static func computeWithoutSynchronizing(_ subject: SubjectThread, rounds: Int) {
        subject.enter()
        var state = 1
        var round = 0
        while round < rounds {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            round &+= 1
        }
        subject.progress.store(state | 1, ordering: .relaxed)
    }

    /// Keeps a core busy until released.
    @inline(never)
    static func burnUntilReleased(_ subject: SubjectThread) {
        subject.enter()
        var spins = 0
        while !subject.isReleased {
            spins &+= 1
        }
        subject.progress.store(spins, ordering: .relaxed)
    }

    /// The first frame whose symbol contains `function`.
    static func frame(of function: String, in backtrace: LoopBacktrace?) -> LoopBacktrace.Frame? {
        backtrace?.frames.first { $0.symbol?.contains(function) == true }
    }

    /// For a capture the thread must answer: long enough for a thread that waits for a core on a loaded machine (the
    /// rest of the suite runs in parallel), since what is checked is the answer, not its speed.
    static let answerTimeout: Duration = .seconds(5)

    static let clockNanosleep = 230  // x86_64 system call numbers
    static let futex = 202

    /// Checks that `backtrace` starts where the thread was: no frame of the capture's signal handler or of its delivery
    /// (the kernel's trampoline, the sanitizer's wrappers) on top.
    static func expectStartsWhereTheThreadWas(
        _ backtrace: LoopBacktrace,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            !backtrace.frames.contains {
                $0.symbol == "mainline_backtrace_handler" || $0.symbol == "record_answer" || $0.symbol == "__restore_rt"
            },
            "handler frames left in:\n\(backtrace)",
            sourceLocation: sourceLocation
        )
        let innermost = backtrace.frames.first?.symbol ?? ""
        #expect(
            !["__tsan", "__sanitizer", "__interceptor_backtrace"].contains { innermost.contains($0) },
            "frame #0 is the signal's delivery:\n\(backtrace)",
            sourceLocation: sourceLocation
        )
    }

    @Test func aThreadSleepingInNanosleepIsCapturedInsideItsFunctionAndItsSleepEndsWithEINTR() throws {
        let sleeper = SubjectThread("sleeper", Self.sleepUntilReleased)
        defer { sleeper.finish(wakingItWithACapture: true) }
        let handle = try #require(sleeper.handleOnceEntered())
        guard
            sleeper.wait(
                until: "asleep in clock_nanosleep",
                { sleeper.currentSystemCall(of: handle) == Self.clockNanosleep }
            )
        else { return }

        let backtrace = LoopBacktrace.capture(of: handle, timeout: Self.answerTimeout)

        let captured = try #require(backtrace, "the sleeping thread did not answer")
        #expect(
            Self.frame(of: "LoopBacktraceTests.sleepUntilReleased", in: captured) != nil,
            "no frame of sleepUntilReleased in:\n\(captured)"
        )
        // Frame #0 is where the thread was (in the kernel call), not the signal handler.
        #expect(captured.frames.first?.symbol?.contains("nanosleep") == true, "frame #0 is not the sleep:\n\(captured)")
        Self.expectStartsWhereTheThreadWas(captured)
        // The documented cost: the sleep returned early, and the thread went back to sleep.
        guard sleeper.wait(until: "woken from its sleep with EINTR", { sleeper.progress.load(ordering: .relaxed) >= 1 })
        else { return }
        #expect(sleeper.wait(until: "asleep again", { sleeper.currentSystemCall(of: handle) == Self.clockNanosleep }))
        // A second capture wakes it to see its release.
        sleeper.release()
        #expect(LoopBacktrace.capture(of: handle, timeout: Self.answerTimeout) != nil)
        #expect(sleeper.finish())
    }

    @Test func aThreadWaitingForAMutexIsCapturedInsideItsFunctionAndKeepsWaiting() throws {
        let lock = _Lock()  // a pthread_mutex_t
        lock.lock()
        let waiter = SubjectThread("waiter") { Self.waitForTheTestsLock($0, lock) }
        var unlocked = false
        defer {
            if !unlocked { lock.unlock() }
            waiter.finish()
        }
        let handle = try #require(waiter.handleOnceEntered())
        guard waiter.wait(until: "blocked in futex", { waiter.currentSystemCall(of: handle) == Self.futex }) else {
            return
        }

        let backtrace = LoopBacktrace.capture(of: handle, timeout: Self.answerTimeout)

        let captured = try #require(backtrace, "the waiting thread did not answer")
        #expect(
            Self.frame(of: "LoopBacktraceTests.waitForTheTestsLock", in: captured) != nil,
            "no frame of waitForTheTestsLock in:\n\(captured)"
        )
        Self.expectStartsWhereTheThreadWas(captured)
        // The futex wait restarted: the thread is still waiting, back in the kernel.
        #expect(waiter.wait(until: "back in futex", { waiter.currentSystemCall(of: handle) == Self.futex }))
        #expect(waiter.progress.load(ordering: .relaxed) == 0, "the thread got the lock the test holds")
        lock.unlock()
        unlocked = true
        #expect(waiter.finish())
        #expect(waiter.progress.load(ordering: .relaxed) == 1)
    }

    @Test func aSpinningThreadIsCapturedInsideItsFunctionAndKeepsSpinning() throws {
        let spinner = SubjectThread("spinner", Self.spinUntilReleased)
        defer { spinner.finish() }
        let handle = try #require(spinner.handleOnceEntered())

        let backtrace = LoopBacktrace.capture(of: handle, timeout: Self.answerTimeout)

        let captured = try #require(backtrace, "the spinning thread did not answer")
        #expect(
            Self.frame(of: "LoopBacktraceTests.spinUntilReleased", in: captured) != nil,
            "no frame of spinUntilReleased in:\n\(captured)"
        )
        Self.expectStartsWhereTheThreadWas(captured)
        #expect(spinner.phase == .entered)
        #expect(spinner.finish())
        #expect(spinner.progress.load(ordering: .relaxed) > 0)
    }

    @Test func aThreadComputingWithoutAtomicsOrCallsAnswersExceptUnderThreadSanitizer() throws {
        // Long enough to outlast the capture by far (about a second under the sanitizer, a quarter of that without).
        let rounds = Self.isThreadSanitized ? 150_000_000 : 100_000_000
        let computer = SubjectThread("computer") { Self.computeWithoutSynchronizing($0, rounds: rounds) }
        defer { computer.finish() }
        let handle = try #require(computer.handleOnceEntered())

        // Under the sanitizer, short: no answer is expected, and the loop must outlast the wait.
        let backtrace = LoopBacktrace.capture(
            of: handle,
            timeout: Self.isThreadSanitized ? .milliseconds(50) : Self.answerTimeout
        )
        let stillComputing = computer.progress.load(ordering: .relaxed) == 0

        if Self.isThreadSanitized {
            // The documented gap: the sanitizer holds the signal until the loop's end (the late answer is dropped).
            #expect(stillComputing, "the loop ended before the capture did: lengthen it")
            // A signal that came before the loop, while `enter()` still made intercepted calls, is answered there.
            #expect(
                backtrace == nil || Self.frame(of: "SubjectThread.enter", in: backtrace) != nil,
                "expected no answer from a loop without atomics under ThreadSanitizer, got:\n\(backtrace!)"
            )
        } else {
            let captured = try #require(backtrace, "the computing thread did not answer")
            #expect(
                Self.frame(of: "LoopBacktraceTests.computeWithoutSynchronizing", in: captured) != nil,
                "no frame of computeWithoutSynchronizing in:\n\(captured)"
            )
            Self.expectStartsWhereTheThreadWas(captured)
        }
        #expect(computer.finish())
        #expect(computer.progress.load(ordering: .relaxed) != 0)
    }

    @Test func capturingAThreadThatHasExitedAnswersNil() throws {
        let brief = SubjectThread("brief") { $0.enter() }
        let handle = try #require(brief.handleOnceEntered())
        try #require(brief.finish())  // joined: its kernel id is gone

        #expect(LoopBacktrace.capture(of: handle) == nil)
    }

    @Test func aHandleWhosePthreadDiffersFromTheThreadWithItsKernelIDAnswersNil() throws {
        // What a handle looks like once its kernel id names a newer thread.
        let sleeper = SubjectThread("sleeper", Self.sleepUntilReleased)
        defer { sleeper.finish(wakingItWithACapture: true) }
        let handle = try #require(sleeper.handleOnceEntered())
        let stale = _ThreadHandle(kernelID: handle.kernelID, pthread: handle.pthread &+ 4096, stack: handle.stack)

        #expect(LoopBacktrace.capture(of: stale) == nil)
        sleeper.release()
        #expect(LoopBacktrace.capture(of: handle, timeout: Self.answerTimeout) != nil)
    }

    @Test func fiveHundredCapturesOfASpinningThreadBesideTwoBusyThreadsAlmostAllFindIt() throws {
        let burners = [
            SubjectThread("burner 1", Self.burnUntilReleased), SubjectThread("burner 2", Self.burnUntilReleased),
        ]
        let spinner = SubjectThread("spinner", Self.spinReadingAPropertyUntilReleased)
        defer {
            for thread in burners + [spinner] { thread.finish() }
        }
        for burner in burners { _ = try #require(burner.handleOnceEntered()) }
        let handle = try #require(spinner.handleOnceEntered())
        let attempts = 500

        var answered = 0
        var found = 0
        var firstMiss: LoopBacktrace?
        for attempt in 0..<attempts {
            guard let backtrace = LoopBacktrace.capture(of: handle) else {
                // Past 10 misses the count below fails anyway: stop instead of waiting out every timeout.
                if attempt + 1 - answered > attempts - 490 { break }
                continue
            }
            answered += 1
            if Self.frame(of: "LoopBacktraceTests.spinReadingAPropertyUntilReleased", in: backtrace) != nil {
                found += 1
            } else if firstMiss == nil {
                firstMiss = backtrace
            }
        }

        #expect(answered >= 490, "only \(answered) of \(attempts) captures answered")
        #expect(found == answered, "\(answered - found) backtraces without the spinning function, e.g.:\n\(firstMiss!)")
        #expect(spinner.phase == .entered && burners.allSatisfy { $0.phase == .entered })
    }

    @Test func capturesFromTwoThreadsAtOnceEachGetTheThreadTheyAskedFor() throws {
        let first = SubjectThread("sleeper 1", Self.sleepUntilReleased)
        let second = SubjectThread("sleeper 2", Self.sleepElsewhereUntilReleased)
        defer {
            first.finish(wakingItWithACapture: true)
            second.finish(wakingItWithACapture: true)
        }
        let targets = [
            (try #require(first.handleOnceEntered()), "LoopBacktraceTests.sleepUntilReleased"),
            (try #require(second.handleOnceEntered()), "LoopBacktraceTests.sleepElsewhereUntilReleased"),
        ]
        let rounds = 200
        // Per requester: captures answered, answers holding the requested function, answers holding the other's.
        let answered = (0..<2).map { _ in ManagedAtomic<Int>(0) }
        let own = (0..<2).map { _ in ManagedAtomic<Int>(0) }
        let other = (0..<2).map { _ in ManagedAtomic<Int>(0) }
        let ready = ManagedAtomic<Int>(0)

        DispatchQueue.concurrentPerform(iterations: 2) { requester in
            // Start together, so that the requests overlap.
            ready.wrappingIncrement(ordering: .relaxed)
            while ready.load(ordering: .relaxed) < 2 { sched_yield() }
            let (handle, function) = targets[requester]
            let otherFunction = targets[1 - requester].1
            for _ in 0..<rounds {
                // Generous: with requests taken in turn, none is lost, however loaded the machine. (Requests that
                // overwrote each other would never be answered, whatever the timeout.)
                // One miss fails the count below: stop instead of waiting out every timeout.
                guard let backtrace = LoopBacktrace.capture(of: handle, timeout: Self.answerTimeout) else { break }
                answered[requester].wrappingIncrement(ordering: .relaxed)
                if Self.frame(of: function, in: backtrace) != nil {
                    own[requester].wrappingIncrement(ordering: .relaxed)
                }
                // The names share a prefix: look for the other one with its argument list.
                if Self.frame(of: otherFunction + "(", in: backtrace) != nil {
                    other[requester].wrappingIncrement(ordering: .relaxed)
                }
            }
        }

        for requester in 0..<2 {
            let count = answered[requester].load(ordering: .relaxed)
            #expect(count == rounds, "requester \(requester): \(count) of \(rounds) answered")
            #expect(own[requester].load(ordering: .relaxed) == count, "requester \(requester): not its thread's stack")
            #expect(
                other[requester].load(ordering: .relaxed) == 0,
                "requester \(requester): got the other thread's stack"
            )
        }
    }

    @Test func prepareCanBeCalledFromManyThreadsAtOnce() throws {
        DispatchQueue.concurrentPerform(iterations: 8) { _ in LoopBacktrace.prepare() }
        let sleeper = SubjectThread("sleeper", Self.sleepUntilReleased)
        defer { sleeper.finish(wakingItWithACapture: true) }
        let handle = try #require(sleeper.handleOnceEntered())
        #expect(LoopBacktrace.capture(of: handle, timeout: Self.answerTimeout) != nil)
        sleeper.release()
        #expect(LoopBacktrace.capture(of: handle, timeout: Self.answerTimeout) != nil)
    }

    @Test func aFrameDescribesItsAddressSymbolOffsetAndImage() {
        let frames = [
            LoopBacktrace.Frame(
                address: 0x55d1_c0a1_b2c3,
                symbol: "Dashboard.Workers.spin()",
                image: "dashboard",
                offset: 42
            ),
            LoopBacktrace.Frame(address: 0x7f00_0000_1000, symbol: nil, image: "libfoo.so", offset: 0),
            LoopBacktrace.Frame(address: 0x10, symbol: nil, image: nil, offset: 0),
        ]

        #expect(
            LoopBacktrace(frames: frames).description == """
                #0 0x000055d1c0a1b2c3 Dashboard.Workers.spin() + 42 in dashboard
                #1 0x00007f0000001000 in libfoo.so
                #2 0x0000000000000010
                """
        )
    }
}
