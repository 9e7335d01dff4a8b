import CLibUV
import MainlineLoopCore

/// What a `_UVEngine` runs: the loop-specific half of every Mainline loop (`MainLoop`'s driver on the main actor, an
/// `EventLoop`'s driver on its thread).
///
/// The engine calls these from libuv callbacks, on the thread that runs the engine, never concurrently. A client whose
/// work is main-actor isolated enters the main actor itself (the hosting modes guarantee the engine runs there).
package protocol _UVEngineClient: AnyObject {
    /// Runs one post phase: at most one budget of posted work. Afterwards the client calls
    /// ``_UVEngine/requestPostPhase()`` if work is still waiting.
    func engineRunPostPhase()
    /// The uv timer fired: runs the timers that are due.
    func engineRunTimers()
    /// libuv's prepare phase, right before it polls (and may block): the client calls
    /// ``_UVEngine/prepareToBlock(deadline:hasImmediateWork:)``.
    func enginePrepare()
    /// libuv's check phase, right after the poll: settle, end of an iteration.
    func engineCheck()
}

/// One libuv loop and the handles through which it runs a Mainline loop: the engine under `MainLoop` (owner and guest
/// mode) and `EventLoop`.
///
/// Created on any thread; ``wake()`` is thread-safe until the queue that calls it removes its waker; everything else
/// runs on the thread (or actor) that runs the engine.
///
/// How one `uv_run` iteration serves the loop (DESIGN.md §2):
/// - **timers** — one `uv_timer_t`, armed for the client's earliest deadline, calls `engineRunTimers`;
/// - **posted work** — in libuv's idle phase, when a post phase was requested (``requestPostPhase()``), and from the
///   `uv_async_t` another thread signals (``wake()``) — at most one post phase per iteration, the other waits for the
///   next one; then I/O callbacks (the poll);
/// - **settle** — the `uv_check_t`, right after the poll, calls `engineCheck`;
/// - before the poll, the `uv_prepare_t` calls `enginePrepare`, and the client re-arms the timer and keeps the
///   `uv_idle_t` running while it has immediate work, so that the poll does not block while anything is pending.
///
/// A loop that has more posted work than one budget, or that posts to itself, needs no system call to come round
/// again: the idle handle keeps the poll from blocking and the next idle phase runs the next post phase. Only a wake-up
/// from another thread goes through the async handle's eventfd (libuv's one thread-safe call).
///
/// The async handle is the loop's keep-alive (every other handle is unreferenced): `uv_run` in its default mode
/// returns once ``beginClosing()`` closed it.
package final class _UVEngine: @unchecked Sendable {
    // @unchecked Sendable: the pointers are written once in `init`; what they point to and every `var` is touched only
    // by the thread running the engine (after `init` hands it over), except `async`, which `uv_async_send` may signal
    // from any thread while it is open — the job queue's lock orders that against the close.
    /// The libuv loop.
    package let loop: UnsafeMutablePointer<uv_loop_t>
    private let async: UnsafeMutablePointer<uv_async_t>
    private let timer: UnsafeMutablePointer<uv_timer_t>
    private let prepare: UnsafeMutablePointer<uv_prepare_t>
    private let check: UnsafeMutablePointer<uv_check_t>
    private let idle: UnsafeMutablePointer<uv_idle_t>
    /// Whose resources these are, for `_UVResources`' counts.
    package let owner: _UVResources.Owner
    package let instance: ObjectIdentifier?

    // Unchecked exclusivity on the stored state below that every iteration touches: it is read and written in place,
    // never held across a call out (the type's comment says what serializes it); the dynamic checks were a measurable
    // part of an iteration (Benchmarks/HISTORY.md, "Speed").
    /// The client; set once by ``attach(_:)`` before the engine first runs. Unowned: the client owns the engine.
    @exclusivity(unchecked) private unowned(unsafe) var client: (any _UVEngineClient)?
    /// What the uv timer is armed for (nanoseconds on the loop clock), or `nil`.
    @exclusivity(unchecked) private var armedDeadline: Int64?
    /// Whether the idle handle runs (the poll does not block).
    @exclusivity(unchecked) private var isKeepingAwake = false
    /// Whether the next idle phase runs a post phase.
    @exclusivity(unchecked) private var isPostPhaseRequested = false
    /// Whether this iteration already ran a post phase (reset in the check phase).
    @exclusivity(unchecked) private var didRunPostPhase = false
    /// Whether ``beginClosing()`` has run.
    @exclusivity(unchecked) package private(set) var isClosing = false
    /// How many times the async handle's callback ran: wake-ups from other threads that reached the loop through the
    /// eventfd (for the package's tests; read it where the engine runs).
    @exclusivity(unchecked) package private(set) var asyncCallbacks = 0
    /// What `uv_loop_close` returned, once ``closeLoop()`` ran.
    @exclusivity(unchecked) package private(set) var loopCloseResult: Int32?

    /// Creates a libuv loop and its handles. The engine does nothing until ``attach(_:)`` and a run.
    package init(owner: _UVResources.Owner, instance: ObjectIdentifier? = nil) {
        self.owner = owner
        self.instance = instance
        loop = _UVResources.allocateLoop(for: owner, instance: instance)
        Self.check(uv_loop_init(loop), "uv_loop_init")
        async = _UVResources.allocateHandle(uv_async_t.self, type: UV_ASYNC, for: owner, instance: instance)
        timer = _UVResources.allocateHandle(uv_timer_t.self, type: UV_TIMER, for: owner, instance: instance)
        prepare = _UVResources.allocateHandle(uv_prepare_t.self, type: UV_PREPARE, for: owner, instance: instance)
        check = _UVResources.allocateHandle(uv_check_t.self, type: UV_CHECK, for: owner, instance: instance)
        idle = _UVResources.allocateHandle(uv_idle_t.self, type: UV_IDLE, for: owner, instance: instance)

        let context = Unmanaged.passUnretained(self).toOpaque()
        Self.check(uv_async_init(loop, async, _mainlineEngineAsync), "uv_async_init")
        async.pointee.data = context
        Self.check(uv_timer_init(loop, timer), "uv_timer_init")
        timer.pointee.data = context
        uv_unref(mainline_uv_handle(timer))
        Self.check(uv_prepare_init(loop, prepare), "uv_prepare_init")
        prepare.pointee.data = context
        Self.check(uv_prepare_start(prepare, _mainlineEnginePrepare), "uv_prepare_start")
        uv_unref(mainline_uv_handle(prepare))
        Self.check(uv_check_init(loop, check), "uv_check_init")
        check.pointee.data = context
        Self.check(uv_check_start(check, _mainlineEngineCheck), "uv_check_start")
        uv_unref(mainline_uv_handle(check))
        Self.check(uv_idle_init(loop, idle), "uv_idle_init")
        idle.pointee.data = context
        uv_unref(mainline_uv_handle(idle))
    }

    /// Hands the engine its client. Called once, before the engine first runs.
    package func attach(_ client: any _UVEngineClient) {
        precondition(self.client == nil, "BUG DETECTED: an engine's client is attached once")
        self.client = client
    }

    /// Checks a libuv call that cannot fail unless Mainline misuses libuv.
    package static func check(_ result: Int32, _ call: StaticString) {
        precondition(result == 0, "\(call) failed: \(String(cString: uv_strerror(result)))")
    }

    // MARK: Any thread

    /// Makes the loop run a post phase soon, from another thread (`uv_async_send`; coalesced by libuv).
    ///
    /// Thread-safe while the async handle is open: call it only from a job queue's waker, which the loop removes
    /// (under the queue's lock) before ``beginClosing()``.
    @inline(__always)
    package func wake() {
        uv_async_send(async)
    }

    // MARK: The engine's thread

    /// Runs libuv in `mode`: `UV_RUN_DEFAULT` until the engine closed (owner mode, an `EventLoop`'s thread), or
    /// `UV_RUN_NOWAIT` for one non-blocking iteration (guest mode).
    package func run(_ mode: uv_run_mode) {
        uv_run(loop, mode)
    }

    /// Runs a post phase in the next idle phase (this iteration's, if it has not passed, else the next iteration's),
    /// and keeps the poll from blocking until then.
    @inline(__always)
    package func requestPostPhase() {
        isPostPhaseRequested = true
        keepAwake(true)
    }

    /// Prepares for the poll: arms the uv timer for `deadline` (nanoseconds on the loop clock; `nil`: none) and keeps
    /// the poll from blocking while the client `hasImmediateWork` or a post phase is requested.
    package func prepareToBlock(deadline: Int64?, hasImmediateWork: Bool) {
        guard !isClosing else { return }
        keepAwake(hasImmediateWork || isPostPhaseRequested)
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        guard let deadline else {
            uv_timer_stop(timer)
            return
        }
        uv_timer_start(timer, _mainlineEngineTimer, _UVClock.timeout(untilDeadline: deadline, on: loop), 0)
    }

    @inline(__always)
    private func keepAwake(_ awake: Bool) {
        guard awake != isKeepingAwake, !isClosing else { return }
        isKeepingAwake = awake
        if awake { uv_idle_start(idle, _mainlineEngineIdle) } else { uv_idle_stop(idle) }
    }

    /// Milliseconds until libuv needs to run again: 0 now, -1 not for time's sake (only on I/O).
    package var backendTimeout: Int32 {
        guard loopCloseResult == nil else { return -1 }
        // The running idle handle makes libuv's answer 0 whatever else is pending: known without refreshing the loop's
        // time, a clock read per iteration of a loop that keeps itself awake.
        if isKeepingAwake, !isClosing { return 0 }
        uv_update_time(loop)
        return uv_backend_timeout(loop)
    }

    /// The file descriptor that becomes readable when libuv has I/O to process (its epoll fd).
    package var backendFD: Int32 { uv_backend_fd(loop) }

    /// Whether any handle is still open or closing.
    package var isAlive: Bool { uv_loop_alive(loop) != 0 }

    /// Closes the engine's handles (the client closes its own, if it opened any). After the close callbacks have run,
    /// ``isAlive`` is `false` and ``closeLoop()`` may close the loop.
    package func beginClosing() {
        guard !isClosing else { return }
        isClosing = true
        _UVResources.close(async, for: owner)
        _UVResources.close(timer, for: owner)
        _UVResources.close(prepare, for: owner)
        _UVResources.close(check, for: owner)
        _UVResources.close(idle, for: owner)
    }

    /// Closes the libuv loop and frees it; every handle must be closed. Returns what `uv_loop_close` returned: on a
    /// failure (a handle still open) the loop is leaked rather than freed, since libuv still points into it.
    @discardableResult
    package func closeLoop() -> Int32 {
        if let loopCloseResult { return loopCloseResult }
        let result = uv_loop_close(loop)
        loopCloseResult = result
        if result == 0 { _UVResources.deallocateLoop(loop, for: owner, instance: instance) }
        return result
    }

    // MARK: Callbacks

    fileprivate func asyncFired() {
        asyncCallbacks &+= 1
        runPostPhase()
    }

    fileprivate func idleFired() {
        if isPostPhaseRequested { runPostPhase() }
    }

    private func runPostPhase() {
        guard let client, !isClosing else { return }
        // One post phase per iteration: a wake-up that arrives after this iteration's phase waits for the next one.
        guard !didRunPostPhase else {
            requestPostPhase()
            return
        }
        didRunPostPhase = true
        isPostPhaseRequested = false
        client.engineRunPostPhase()
    }

    fileprivate func timerFired() {
        armedDeadline = nil
        client?.engineRunTimers()
    }

    fileprivate func prepareFired() {
        client?.enginePrepare()
    }

    fileprivate func checkFired() {
        didRunPostPhase = false
        client?.engineCheck()
    }

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> _UVEngine {
        Unmanaged<_UVEngine>.fromOpaque(data!).takeUnretainedValue()
    }
}

// libuv calls plain C function pointers: nonisolated top-level functions, the engine in `handle->data`.

private func _mainlineEngineAsync(_ handle: UnsafeMutablePointer<uv_async_t>?) {
    _UVEngine.from(handle?.pointee.data).asyncFired()
}

private func _mainlineEngineIdle(_ handle: UnsafeMutablePointer<uv_idle_t>?) {
    _UVEngine.from(handle?.pointee.data).idleFired()
}

private func _mainlineEngineTimer(_ handle: UnsafeMutablePointer<uv_timer_t>?) {
    _UVEngine.from(handle?.pointee.data).timerFired()
}

private func _mainlineEnginePrepare(_ handle: UnsafeMutablePointer<uv_prepare_t>?) {
    _UVEngine.from(handle?.pointee.data).prepareFired()
}

private func _mainlineEngineCheck(_ handle: UnsafeMutablePointer<uv_check_t>?) {
    _UVEngine.from(handle?.pointee.data).checkFired()
}
