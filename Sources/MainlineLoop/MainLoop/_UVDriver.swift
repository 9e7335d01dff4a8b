import CLibUV
import CMainlineShims
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One libuv loop and the handles through which it runs a `_LoopCore`: the engine under `MainLoop`.
///
/// Created on any thread (a post from a worker may start the main loop); from then on used only on the main
/// actor, whether libuv runs on the main thread (owner mode) or is pumped from the main queue (guest mode).
///
/// How one `uv_run` iteration maps onto DESIGN.md §2:
/// - **timers** — one `uv_timer_t`, armed for the core's earliest deadline, runs `core.runDueTimers`;
/// - **posted work and I/O** — the `uv_async_t` runs one budget of posts (and signals itself while more
///   remain), the main-queue poll (owner mode) drains the dispatch main queue, I/O callbacks run;
/// - **settle** — the `uv_check_t` (right after poll) runs `core.runSettle`;
/// - before blocking, the `uv_prepare_t` (and, in guest mode, the end of every pump) re-arms the timer and keeps the `uv_idle_t` running while the core
///   has immediate work, so that poll does not block while anything is pending.
final class _UVDriver: @unchecked Sendable {
    // @unchecked Sendable: the pointers are written once in `init`; everything they point to, and every `var`
    // below, is touched only on the main actor (protected by the loop), after `init` hands the driver over.
    let loop: UnsafeMutablePointer<uv_loop_t>
    private let async: UnsafeMutablePointer<uv_async_t>
    private let timer: UnsafeMutablePointer<uv_timer_t>
    private let prepare: UnsafeMutablePointer<uv_prepare_t>
    private let check: UnsafeMutablePointer<uv_check_t>
    private let idle: UnsafeMutablePointer<uv_idle_t>
    private var mainQueuePoll: UnsafeMutablePointer<uv_poll_t>?
    private var signalHandles: [LoopSignal: UnsafeMutablePointer<uv_signal_t>] = [:]

    let core: _LoopCore
    /// The `MainLoop` this driver runs, for per-loop resource counts (`_UVResources.live(of:)`).
    private let instance: ObjectIdentifier?
    /// Called on the main actor once every handle is closed and the libuv loop is closed and freed.
    private let onFinished: @MainActor (_UVDriver) -> Void

    /// Whether an iteration (`uv_run`) is on the stack.
    private(set) var isIterating = false
    /// Whether shutdown has begun (handles are closing).
    private(set) var isShuttingDown = false
    /// What the uv timer is armed for (nanoseconds on the loop clock), or `nil`.
    private var armedDeadline: Int64?
    private var isIdleRunning = false
    /// The pump when in guest mode.
    var guestPump: _GuestPump?
    /// What `uv_loop_close` returned (0 when every handle was closed), once the loop is closed.
    private(set) var loopCloseResult: Int32?

    init(core: _LoopCore, instance: ObjectIdentifier?, onFinished: @escaping @MainActor (_UVDriver) -> Void) {
        self.core = core
        self.instance = instance
        self.onFinished = onFinished
        loop = _UVResources.allocateLoop(instance: instance)
        Self.check(uv_loop_init(loop), "uv_loop_init")
        async = _UVResources.allocateHandle(uv_async_t.self, type: UV_ASYNC, instance: instance)
        timer = _UVResources.allocateHandle(uv_timer_t.self, type: UV_TIMER, instance: instance)
        prepare = _UVResources.allocateHandle(uv_prepare_t.self, type: UV_PREPARE, instance: instance)
        check = _UVResources.allocateHandle(uv_check_t.self, type: UV_CHECK, instance: instance)
        idle = _UVResources.allocateHandle(uv_idle_t.self, type: UV_IDLE, instance: instance)

        let context = Unmanaged.passUnretained(self).toOpaque()
        // The async handle is the loop's keep-alive: it stays referenced, so `uv_run` returns only after
        // shutdown closed it. Every other handle is unreferenced.
        Self.check(uv_async_init(loop, async, _mainlineAsyncFired), "uv_async_init")
        async.pointee.data = context
        Self.check(uv_timer_init(loop, timer), "uv_timer_init")
        timer.pointee.data = context
        uv_unref(mainline_uv_handle(timer))
        Self.check(uv_prepare_init(loop, prepare), "uv_prepare_init")
        prepare.pointee.data = context
        Self.check(uv_prepare_start(prepare, _mainlinePrepare), "uv_prepare_start")
        uv_unref(mainline_uv_handle(prepare))
        Self.check(uv_check_init(loop, check), "uv_check_init")
        check.pointee.data = context
        Self.check(uv_check_start(check, _mainlineCheck), "uv_check_start")
        uv_unref(mainline_uv_handle(check))
        Self.check(uv_idle_init(loop, idle), "uv_idle_init")
        idle.pointee.data = context
        uv_unref(mainline_uv_handle(idle))
    }

    private static let logger = Logger(label: "mainline.loop")

    static func from(_ data: UnsafeMutableRawPointer?) -> _UVDriver {
        Unmanaged<_UVDriver>.fromOpaque(data!).takeUnretainedValue()
    }

    private static func check(_ result: Int32, _ call: StaticString) {
        precondition(result == 0, "\(call) failed: \(String(cString: uv_strerror(result)))")
    }

    /// Wakes the loop from any thread (`uv_async_send` is libuv's one thread-safe call).
    nonisolated func wake() {
        uv_async_send(async)
    }

    // MARK: Iterations

    /// Runs libuv until shutdown completes (owner mode).
    @MainActor
    func runUntilClosed() {
        unblockWatchedSignals()
        isIterating = true
        uv_run(loop, UV_RUN_DEFAULT)
        isIterating = false
        finishIfClosed()
    }

    /// Runs one non-blocking iteration (guest mode). Returns `false` when re-entered, which it refuses.
    @MainActor
    @discardableResult
    func runOnce() -> Bool {
        guard !isIterating, loopCloseResult == nil else { return false }
        isIterating = true
        uv_run(loop, UV_RUN_NOWAIT)
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
        guard core.runIdleIfNothingPending(now: MainLoop.clockNow()) > 0 else { return false }
        prepareToWait(runningIdle: false)
        return true
    }

    /// Milliseconds until libuv needs to run again: 0 now, -1 not for time's sake (only on I/O).
    @MainActor
    var backendTimeout: Int32 {
        guard loopCloseResult == nil else { return -1 }
        uv_update_time(loop)
        return uv_backend_timeout(loop)
    }

    /// The file descriptor that becomes readable when libuv has I/O to process (its epoll fd).
    var backendFD: Int32 { uv_backend_fd(loop) }

    @MainActor
    fileprivate func asyncFired() {
        core.runPosts()
        if core.posts.closed {
            beginShutdown()
        } else if core.hasPostsWaiting {
            // Posts left over from the budget, or posted behind this snapshot: run them in the next iteration.
            // Producers wake the loop only on empty → non-empty, so signalling ourselves is what keeps a budgeted,
            // snapshot-at-a-time drain from stalling.
            uv_async_send(async)
        }
    }

    @MainActor
    fileprivate func timerFired() {
        armedDeadline = nil
        core.runDueTimers(now: MainLoop.clockNow())
    }

    /// Arms the uv timer for the core's earliest deadline and keeps the idle handle running while the core has
    /// immediate work (so that poll does not block). Runs in libuv's prepare phase, and after every guest pump.
    ///
    /// With `runningIdle` (libuv's prepare phase in owner mode: poll is next) it first runs the core's idle phase,
    /// so that what idle bodies post, schedule or settle keeps poll from blocking.
    @MainActor
    fileprivate func prepareToWait(runningIdle: Bool) {
        guard !isShuttingDown else { return }
        if runningIdle { core.runIdleIfNothingPending(now: MainLoop.clockNow()) }
        core.willWait()
        let immediate = core.hasImmediateWork
        if immediate != isIdleRunning {
            isIdleRunning = immediate
            if immediate { uv_idle_start(idle, _mainlineIdle) } else { uv_idle_stop(idle) }
        }
        let next = core.nextDeadline?.nanoseconds
        guard next != armedDeadline else { return }
        armedDeadline = next
        guard let next else {
            uv_timer_stop(timer)
            return
        }
        uv_timer_start(timer, _mainlineTimerFired, _UVClock.timeout(untilDeadline: next, on: loop), 0)
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
            core.runExternal("main queue") { mainline_dispatch_drain_main_queue() }
        }
    }

    // MARK: Owner mode

    /// Watches libdispatch's main-queue eventfd so that main-queue work runs inside the loop (owner mode).
    @MainActor
    func startDrainingMainQueue() {
        guard mainQueuePoll == nil, !isShuttingDown else { return }
        let poll = _UVResources.allocateHandle(uv_poll_t.self, type: UV_POLL, instance: instance)
        Self.check(uv_poll_init(loop, poll, mainline_dispatch_main_queue_fd()), "uv_poll_init")
        poll.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        Self.check(uv_poll_start(poll, Int32(UV_READABLE.rawValue), _mainlineMainQueueReadable), "uv_poll_start")
        uv_unref(mainline_uv_handle(poll))
        mainQueuePoll = poll
    }

    // MARK: Signals

    @MainActor
    func setSignal(_ signal: LoopSignal, watched: Bool) {
        if watched {
            guard signalHandles[signal] == nil, !isShuttingDown else { return }
            let handle = _UVResources.allocateHandle(uv_signal_t.self, type: UV_SIGNAL, instance: instance)
            Self.check(uv_signal_init(loop, handle), "uv_signal_init")
            handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
            Self.check(uv_signal_start(handle, _mainlineSignalArrived, signal.rawValue), "uv_signal_start")
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
        isShuttingDown = true
        for handle in signalHandles.values { _UVResources.close(handle) }
        signalHandles = [:]
        if let mainQueuePoll { _UVResources.close(mainQueuePoll) }
        mainQueuePoll = nil
        _UVResources.close(async)
        _UVResources.close(timer)
        _UVResources.close(prepare)
        _UVResources.close(check)
        _UVResources.close(idle)
    }

    /// Closes and frees the libuv loop once shutdown has closed every handle.
    @MainActor
    private func finishIfClosed() {
        guard isShuttingDown, loopCloseResult == nil, uv_loop_alive(loop) == 0 else { return }
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
        let result = uv_loop_close(loop)
        loopCloseResult = result
        if result == 0 {
            _UVResources.deallocateLoop(loop, instance: instance)
        } else {
            // libuv still points into the loop from a handle that is open: freeing it would be a use-after-free.
            // Leak it instead, and say so loudly (debug builds stop here).
            let message =
                "BUG DETECTED: uv_loop_close returned \(result) (\(String(cString: uv_strerror(result)))): a handle the main loop opened is still open; its libuv loop is leaked rather than freed"
            assertionFailure(message)
            Self.logger.critical("\(message)")
        }
        guestPump = nil
        onFinished(self)
    }
}

// libuv calls plain C function pointers. These are nonisolated top-level functions (a closure written inside
// main-actor code would be inferred main-actor and trap if ever called elsewhere). The hosting modes guarantee that
// libuv runs on the main actor; `_MainActorCallback` enters it without an allocation per call (these run on every
// wake-up) and checks it in debug builds.

private let _asyncFired = _MainActorCallback<_UVDriver> { $0.asyncFired() }
private let _timerFired = _MainActorCallback<_UVDriver> { $0.timerFired() }
// Guest mode runs the idle phase at the end of the pump instead (`runIdlePhase()`): a non-blocking run's prepare
// phase comes before its poll, with posts and I/O of that very pump still to run.
private let _prepareToWait = _MainActorCallback<_UVDriver> { $0.prepareToWait(runningIdle: $0.guestPump == nil) }
private let _afterPoll = _MainActorCallback<_UVDriver> { $0.afterPoll() }
private let _mainQueueReadable = _MainActorCallback<_UVDriver> { $0.mainQueueReadable() }

private func _mainlineAsyncFired(_ handle: UnsafeMutablePointer<uv_async_t>?) {
    _asyncFired(_UVDriver.from(handle?.pointee.data))
}

private func _mainlineTimerFired(_ handle: UnsafeMutablePointer<uv_timer_t>?) {
    _timerFired(_UVDriver.from(handle?.pointee.data))
}

private func _mainlinePrepare(_ handle: UnsafeMutablePointer<uv_prepare_t>?) {
    _prepareToWait(_UVDriver.from(handle?.pointee.data))
}

private func _mainlineCheck(_ handle: UnsafeMutablePointer<uv_check_t>?) {
    _afterPoll(_UVDriver.from(handle?.pointee.data))
}

private func _mainlineIdle(_ handle: UnsafeMutablePointer<uv_idle_t>?) {
    // Nothing to do: an active idle handle only keeps the poll phase from blocking while work is pending.
}

private func _mainlineMainQueueReadable(_ handle: UnsafeMutablePointer<uv_poll_t>?, _ status: Int32, _ events: Int32) {
    _mainQueueReadable(_UVDriver.from(handle?.pointee.data))
}

private func _mainlineSignalArrived(_ handle: UnsafeMutablePointer<uv_signal_t>?, _ signum: Int32) {
    // Rare: the allocation of `assumeIsolated` does not matter here.
    let driver = _UVDriver.from(handle?.pointee.data)
    MainActor.assumeIsolated { driver.signalArrived(signum) }
}
