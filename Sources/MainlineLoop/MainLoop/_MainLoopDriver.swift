import CLibUV
import CMainlineShims
import Logging
import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What `MainLoop` runs on the engine: the main-actor half of the main loop, and the handles only the main loop has
/// (the dispatch main queue's fd in owner mode, signal handles).
///
/// Created on any thread (a post from a worker may start the main loop); from then on used only on the main actor,
/// whether libuv runs on the main thread (owner mode) or is pumped from the main queue (guest mode).
///
/// The engine (`_UVEngine`) calls the core's phases through this driver: timers, one budget of posts, settle after
/// the poll; before the poll the driver arms the engine for the core's next deadline and keeps it awake while the core
/// has immediate work. In owner mode the idle phase (`whenIdle`) runs in libuv's prepare phase; in guest mode at the
/// end of a pump.
final class _MainLoopDriver: _UVEngineClient, @unchecked Sendable {
    // @unchecked Sendable: the engine and the pointers are written once in `init`; everything they point to, and every
    // `var` below, is touched only on the main actor (protected by the loop), after `init` hands the driver over.
    let engine: _UVEngine
    private var mainQueuePoll: UnsafeMutablePointer<uv_poll_t>?
    private var signalHandles: [LoopSignal: UnsafeMutablePointer<uv_signal_t>] = [:]

    let core: _LoopCore
    /// The `MainLoop` this driver runs, for per-loop resource counts (`_UVResources.live(of:)`).
    private let instance: ObjectIdentifier?
    /// Called on the main actor once every handle is closed and the libuv loop is closed and freed.
    private let onFinished: @MainActor (_MainLoopDriver) -> Void

    // Unchecked exclusivity on the stored state below that every iteration touches: it is read and written in place,
    // never held across a call out (the type's comment says what serializes it); the dynamic checks were a measurable
    // part of an iteration (Benchmarks/HISTORY.md, "Speed").
    /// Whether an iteration (`uv_run`) is on the stack.
    @exclusivity(unchecked) private(set) var isIterating = false
    /// Whether shutdown has begun (handles are closing).
    var isShuttingDown: Bool { engine.isClosing }
    /// The pump when in guest mode.
    @exclusivity(unchecked) var guestPump: _GuestPump?
    /// What `uv_loop_close` returned (0 when every handle was closed), once the loop is closed.
    var loopCloseResult: Int32? { engine.loopCloseResult }

    init(core: _LoopCore, instance: ObjectIdentifier?, onFinished: @escaping @MainActor (_MainLoopDriver) -> Void) {
        self.core = core
        self.instance = instance
        self.onFinished = onFinished
        engine = _UVEngine(owner: .mainLoop, instance: instance)
        engine.attach(self)
    }

    private static let logger = Logger(label: "mainline.loop")

    static func from(_ data: UnsafeMutableRawPointer?) -> _MainLoopDriver {
        Unmanaged<_MainLoopDriver>.fromOpaque(data!).takeUnretainedValue()
    }

    /// Wakes the loop from another thread (`uv_async_send`). Posts from inside the loop's own phases need no wake-up:
    /// the driver looks for waiting posts before every poll.
    nonisolated func wake() {
        engine.wake()
    }

    /// Owner mode: installs the job queue's waker — what another thread's post, or settle request, calls when it finds
    /// the loop asleep: `uv_async_send` through the async handle. A post from inside one of the loop's phases needs no
    /// wake-up: the driver looks for posts before every poll.
    func installOwnerModeWaker() {
        core.posts.installWaker(loopMark: UInt(bitPattern: core.owner)) { [self] in wake() }
    }

    // MARK: Iterations

    /// Runs libuv until shutdown completes (owner mode).
    @MainActor
    func runUntilClosed() {
        unblockWatchedSignals()
        isIterating = true
        engine.run(UV_RUN_DEFAULT)
        isIterating = false
        finishIfClosed()
    }

    /// Runs one non-blocking iteration (guest mode). Returns `false` when re-entered, which it refuses.
    ///
    /// - Parameter withPosts: Run a post phase in it (the pump was queued for posts that arrived at an empty queue).
    @MainActor
    @discardableResult
    func runOnce(withPosts: Bool = false) -> Bool {
        guard !isIterating, loopCloseResult == nil else { return false }
        if withPosts { engine.requestPostPhase() }
        isIterating = true
        engine.run(UV_RUN_NOWAIT)
        isIterating = false
        // libuv runs prepare (where the uv timer and idle handle are armed) *before* poll, and a non-blocking run
        // does not come round again: a timer scheduled by posted work or settle in this run would be left unarmed
        // and `uv_backend_timeout` would say "nothing time-based". Arm for what the core needs now.
        prepareToWait(runningIdle: false)
        finishIfClosed()
        return true
    }

    /// Guest mode: runs the core's idle phase after a pump that left libuv nothing to do now, and re-arms for what
    /// the idle bodies asked for. Returns whether any body ran (then libuv's timeout must be read again).
    @MainActor
    func runIdlePhase() -> Bool {
        guard !isShuttingDown, loopCloseResult == nil else { return false }
        guard core.runIdleIfNothingPending(now: _MonotonicClock.now()) > 0 else { return false }
        prepareToWait(runningIdle: false)
        return true
    }

    /// Milliseconds until libuv needs to run again: 0 now, -1 not for time's sake (only on I/O).
    @MainActor
    var backendTimeout: Int32 { engine.backendTimeout }

    /// The file descriptor that becomes readable when libuv has I/O to process (its epoll fd).
    var backendFD: Int32 { engine.backendFD }

    // MARK: The engine's callbacks

    nonisolated func engineRunPostPhase() { _runPostPhase(self) }
    nonisolated func engineRunTimers() { _runTimers(self) }
    // Guest mode runs the idle phase at the end of the pump instead (`runIdlePhase()`): a non-blocking run's prepare
    // phase comes before its poll, with posts and I/O of that very pump still to run.
    nonisolated func enginePrepare() { _prepare(self) }
    nonisolated func engineCheck() { _afterPoll(self) }

    @MainActor
    fileprivate func runPostPhase() {
        core.runPosts()
        switch core.scheduler.afterPosts(shutsDown: .atClose) {
        case .moreWaiting:
            // Posts left over from the budget, or posted behind this snapshot: producers wake only a loop that went to
            // sleep, so the loop comes round for them itself — without a system call.
            engine.requestPostPhase()
        case .idle:
            break
        case .closed:
            beginShutdown()
        }
    }

    @MainActor
    fileprivate func runTimers() {
        let fired = core.runDueTimers(now: _MonotonicClock.now())
        // What the timers posted runs in this iteration's post phase (libuv's idle phase comes next), as DESIGN §2
        // orders an iteration: a post from inside the loop does not wake it.
        if fired > 0, core.scheduler.hasPostsWaiting { engine.requestPostPhase() }
    }

    /// Arms the engine for the core's earliest deadline and keeps it awake while the core has immediate work or posts
    /// are waiting (so that poll does not block). Runs in libuv's prepare phase, and after every guest pump.
    ///
    /// With `runningIdle` (libuv's prepare phase in owner mode: poll is next) it first runs the core's idle phase,
    /// so that what idle bodies post, schedule or settle keeps poll from blocking.
    @MainActor
    fileprivate func prepareToWait(runningIdle: Bool) {
        guard !isShuttingDown else { return }
        if runningIdle { core.runIdleIfNothingPending(now: _MonotonicClock.now()) }
        core.willWait()
        // Posts made, or a stop requested, inside the loop's own phases did not wake it (see `MainLoop`'s waker): this
        // is where they are seen.
        if core.mustRunPostsBeforeBlocking() { engine.requestPostPhase() }
        engine.prepareToBlock(deadline: core.nextDeadline?.nanoseconds, hasImmediateWork: core.hasImmediateWork)
    }

    @MainActor
    fileprivate func afterPoll() {
        guard !isShuttingDown else { return }
        core.runSettle()
        core.endIteration()
    }

    @MainActor
    fileprivate func mainQueueReadable() {
        if mainline_dispatch_acknowledge_main_queue_wakeup() {
            core.runMainQueueDrain { mainline_dispatch_drain_main_queue() }
        }
    }

    // MARK: Owner mode

    /// Watches libdispatch's main-queue eventfd so that main-queue work runs inside the loop (owner mode).
    @MainActor
    func startDrainingMainQueue() {
        guard mainQueuePoll == nil, !isShuttingDown else { return }
        let poll = _UVResources.allocateHandle(uv_poll_t.self, type: UV_POLL, instance: instance)
        _UVEngine.check(uv_poll_init(engine.loop, poll, mainline_dispatch_main_queue_fd()), "uv_poll_init")
        poll.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        _UVEngine.check(uv_poll_start(poll, Int32(UV_READABLE.rawValue), _mainlineMainQueueReadable), "uv_poll_start")
        uv_unref(mainline_uv_handle(poll))
        mainQueuePoll = poll
    }

    // MARK: Signals

    @MainActor
    func setSignal(_ signal: LoopSignal, watched: Bool) {
        if watched {
            guard signalHandles[signal] == nil, !isShuttingDown else { return }
            let handle = _UVResources.allocateHandle(uv_signal_t.self, type: UV_SIGNAL, instance: instance)
            _UVEngine.check(uv_signal_init(engine.loop, handle), "uv_signal_init")
            handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
            _UVEngine.check(uv_signal_start(handle, _mainlineSignalArrived, signal.rawValue), "uv_signal_start")
            uv_unref(mainline_uv_handle(handle))
            signalHandles[signal] = handle
            if mainline_is_main_thread() { Self.unblockOnThisThread(signal) }
        } else if let handle = signalHandles.removeValue(forKey: signal) {
            uv_signal_stop(handle)
            _UVResources.close(handle)
        }
    }

    /// Unblocks `signal` on the calling thread.
    ///
    /// A process inherits its blocked-signal mask from whoever spawned it, and a Swift parent that spawns from a
    /// dispatch worker thread (Foundation's `Process` does) hands down a mask that blocks SIGINT, SIGTERM and
    /// SIGHUP: such a signal would stay pending forever and the handler never run. Registering a handler says the
    /// program wants the signal, so the thread that runs the loop stops blocking it — libuv's own `uv_spawn` resets
    /// a child's mask for the same reason. Only done on the process main thread (owner mode, or a guest hosted
    /// there); dispatch's worker threads block signals on purpose and are left alone.
    private static func unblockOnThisThread(_ signal: LoopSignal) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal.rawValue)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Owner mode starts on the main thread: make sure signals watched since a guest phase are not blocked there.
    @MainActor
    func unblockWatchedSignals() {
        for signal in signalHandles.keys { Self.unblockOnThisThread(signal) }
    }

    @MainActor
    fileprivate func signalArrived(_ signum: Int32) {
        core.deliverSignal(LoopSignal(rawValue: signum))
    }

    // MARK: Shutdown

    /// Runs what was already posted, settles, cancels timers and handlers, then closes every handle.
    @MainActor
    private func beginShutdown() {
        guard !isShuttingDown else { return }
        // No producer can touch the async handle once the waker is gone (the queue calls it under its lock).
        core.posts.setWaker(nil)
        core.shutDown()
        for handle in signalHandles.values { _UVResources.close(handle) }
        signalHandles = [:]
        if let mainQueuePoll { _UVResources.close(mainQueuePoll) }
        mainQueuePoll = nil
        engine.beginClosing()
    }

    /// Closes and frees the libuv loop once shutdown has closed every handle.
    @MainActor
    private func finishIfClosed() {
        guard isShuttingDown, loopCloseResult == nil, !engine.isAlive else { return }
        guard guestPump?.isDetachedFromBackend ?? true else {
            // Guest mode: dispatch still watches the epoll fd; the pump closes the loop from its cancel handler.
            guestPump?.finish()
            return
        }
        closeLoop()
    }

    /// Closes and frees the libuv loop. Every handle must have been closed.
    @MainActor
    func closeLoop() {
        guard loopCloseResult == nil else { return }
        let result = engine.closeLoop()
        if result != 0 {
            // libuv still points into the loop from a handle that is open: freeing it would be a use-after-free.
            // The engine leaked it instead; say so loudly (debug builds stop here).
            let message =
                "BUG DETECTED: uv_loop_close returned \(result) (\(String(cString: uv_strerror(result)))): a handle the main loop opened is still open; its libuv loop is leaked rather than freed"
            assertionFailure(message)
            Self.logger.critical("\(message)")
        }
        guestPump = nil
        onFinished(self)
    }
}

// libuv and the engine call plain functions. These are nonisolated top-level values (a closure written inside
// main-actor code would be inferred main-actor and trap if ever called elsewhere). The hosting modes guarantee that
// the engine runs on the main actor; `_MainActorCallback` enters it without an allocation per call (these run on every
// wake-up) and checks it in debug builds.

private let _runPostPhase = _MainActorCallback<_MainLoopDriver> { $0.runPostPhase() }
private let _runTimers = _MainActorCallback<_MainLoopDriver> { $0.runTimers() }
private let _prepare = _MainActorCallback<_MainLoopDriver> { $0.prepareToWait(runningIdle: $0.guestPump == nil) }
private let _afterPoll = _MainActorCallback<_MainLoopDriver> { $0.afterPoll() }
private let _mainQueueReadable = _MainActorCallback<_MainLoopDriver> { $0.mainQueueReadable() }

private func _mainlineMainQueueReadable(_ handle: UnsafeMutablePointer<uv_poll_t>?, _ status: Int32, _ events: Int32) {
    _mainQueueReadable(_MainLoopDriver.from(handle?.pointee.data))
}

private func _mainlineSignalArrived(_ handle: UnsafeMutablePointer<uv_signal_t>?, _ signum: Int32) {
    // Rare: the allocation of `assumeIsolated` does not matter here.
    let driver = _MainLoopDriver.from(handle?.pointee.data)
    MainActor.assumeIsolated { driver.signalArrived(signum) }
}
