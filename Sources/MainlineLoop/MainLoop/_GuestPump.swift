import Atomics
import CMainlineShims
import Dispatch
import MainlineLoopCore

/// Pumps a `_MainLoopDriver`'s engine from the dispatch main queue: guest mode.
///
/// Created on any thread; afterwards used only on the main actor (its dispatch sources target the main queue).
///
/// A dispatch read source watches libuv's backend (epoll) fd, a strict dispatch timer covers libuv's next timeout, and
/// a user-data source is how other threads' posts wake it (``pumpSoon()``); each fire runs one non-blocking `uv_run`. After every pump the pump asks libuv when it needs to run
/// again: `0` means now (pending callbacks, an idle handle, closing handles, watchers not yet in epoll),
/// a positive number arms the timer, `-1` means only on I/O.
final class _GuestPump: @unchecked Sendable {
    // @unchecked Sendable: the sources are thread-safe dispatch objects; every `var` is protected by the main
    // actor (all handlers run on the main queue), and `start()` runs before any handler can.
    // unowned(unsafe): the driver owns the pump and outlives its activity — `finish()` and `detach()` clear `isActive`
    // before the driver can go, and every use of `driver` comes after a check of `isActive`. (The loop that owns the
    // driver is `MainLoop.main`, which never goes, or a package test's own loop, stopped before it is released.) A safe
    // unowned reference would cost an atomic retain and release per use, several per pump.
    private unowned(unsafe) let driver: _MainLoopDriver
    private let readSource: DispatchSourceRead
    private let timerSource: DispatchSourceTimer
    /// How other threads wake the loop: a coalescing user-data source on the main queue (see ``pumpSoon()``).
    private let wakeSource: DispatchSourceUserDataOr
    // Unchecked exclusivity on the stored state below that every iteration touches: it is read and written in place,
    // never held across a call out (the type's comment says what serializes it); the dynamic checks were a measurable
    // part of an iteration (Benchmarks/HISTORY.md, "Speed").
    /// When the timer source is armed to fire, in `DispatchTime.uptimeNanoseconds`.
    @exclusivity(unchecked) @MainActor private var timerArmedFor: UInt64?
    @exclusivity(unchecked) @MainActor private var isPumpQueued = false
    @exclusivity(unchecked) @MainActor private var isActive = true
    /// How many pumps ``pumpSoon()`` has queued (for the package's tests; one atomic add per wake-up).
    private let queuedWakeUps = ManagedAtomic(0)
    /// Whether dispatch no longer watches libuv's backend fd (so the libuv loop may be closed).
    @exclusivity(unchecked) @MainActor private(set) var isDetachedFromBackend = false

    init(driver: _MainLoopDriver) {
        self.driver = driver
        readSource = DispatchSource.makeReadSource(fileDescriptor: driver.backendFD, queue: .main)
        timerSource = DispatchSource.makeTimerSource(flags: .strict, queue: .main)
        wakeSource = DispatchSource.makeUserDataOrSource(queue: .main)
    }

    /// Starts watching and queues the first pump (libuv adds its watchers to epoll only inside a run).
    func start() {
        // The handlers run on the main queue, which the main actor runs on; they fire on every wake-up, so they
        // enter the main actor without `assumeIsolated`'s per-call allocation.
        readSource.setEventHandler { [unowned self] in _pumpNow(self) }
        timerSource.setEventHandler { [unowned self] in _timerPump(self) }
        wakeSource.setEventHandler { [unowned self] in _wokenPump(self) }
        timerSource.schedule(deadline: .distantFuture)
        readSource.resume()
        timerSource.resume()
        wakeSource.resume()
        pumpSoon()
    }

    /// Queues one pump on the main queue (coalesced: at most one is queued at a time).
    @MainActor
    func schedulePump() {
        guard isActive, !isPumpQueued else { return }
        isPumpQueued = true
        mainline_dispatch_async_main(Unmanaged.passRetained(self).toOpaque(), _mainlineGuestScheduledPump)
    }

    /// Queues one pump that runs a post phase on the main queue, from any thread: how guest mode is woken for posts.
    ///
    /// The job queue's waker calls this, and only this, when posts arrive at an empty queue: one wake-up per batch.
    /// Going through libuv's async handle instead would reach the loop through an eventfd, dispatch's epoll manager
    /// thread and only then a main-queue worker: three threads, and a cross-CPU wake-up more than the main queue itself
    /// needs.
    ///
    /// It merges into a user-data source on the main queue rather than `dispatch_async`: dispatch takes a block's
    /// continuation from the *calling* thread's cache and frees it into the main queue's thread's, so a producer
    /// thread's every `dispatch_async` allocates (measured: one `malloc` per wake-up, 2–31 per 1,000 posts). Merging
    /// into a source allocates nothing, and merges that arrive before the handler runs coalesce into one pump.
    func pumpSoon() {
        queuedWakeUps.wrappingIncrement(ordering: .relaxed)
        wakeSource.or(data: 1)
    }

    /// How many pumps ``pumpSoon()`` has queued so far. Thread-safe.
    var wakeUpsQueued: Int { queuedWakeUps.load(ordering: .relaxed) }

    @MainActor
    fileprivate func timerFired() {
        timerArmedFor = nil
        pump()
    }

    @MainActor
    fileprivate func runScheduledPump() {
        isPumpQueued = false
        pump()
    }

    @MainActor
    fileprivate func runWokenPump() {
        pump(withPosts: true)
    }

    @MainActor
    fileprivate func pump(withPosts: Bool = false) {
        guard isActive, driver.runOnce(withPosts: withPosts), isActive else { return }
        var timeout = driver.backendTimeout
        // libuv would wait now: the iteration left nothing pending, so it is the idle phase's turn. What idle bodies
        // posted, scheduled or settled changes the timeout.
        if timeout != 0, driver.runIdlePhase(), isActive { timeout = driver.backendTimeout }
        if timeout == 0 {
            schedulePump()
        } else if timeout > 0 {
            let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout) * 1_000_000
            // Re-arm only when the deadline moves earlier; a timer that fires early just pumps once for nothing.
            if let armed = timerArmedFor, armed <= deadline, armed > DispatchTime.now().uptimeNanoseconds { return }
            timerArmedFor = deadline
            timerSource.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .nanoseconds(0))
        }
    }

    /// Stops pumping for good and closes the libuv loop once dispatch has let go of its fd (shutdown).
    @MainActor
    func finish() {
        guard isActive else { return }
        isActive = false
        let driver = self.driver
        // The epoll fd must outlive dispatch's registration: close the loop only in the cancel handler.
        readSource.setCancelHandler {
            MainActor.assumeIsolated {
                self.isDetachedFromBackend = true
                driver.closeLoop()
            }
        }
        readSource.cancel()
        timerSource.cancel()
        wakeSource.cancel()
    }

    /// Stops pumping without closing anything: `run()` takes the loop over on the main thread (owner mode).
    @MainActor
    func detach() {
        guard isActive else { return }
        isActive = false
        readSource.cancel()
        timerSource.cancel()
        wakeSource.cancel()
    }
}

private let _pumpNow = _MainActorCallback<_GuestPump> { $0.pump() }
private let _wokenPump = _MainActorCallback<_GuestPump> { $0.runWokenPump() }
private let _scheduledPump = _MainActorCallback<_GuestPump> { $0.runScheduledPump() }
private let _timerPump = _MainActorCallback<_GuestPump> { $0.timerFired() }

// The main-queue work function for `mainline_dispatch_async_main`: takes back the pump retained when queued.

private func _mainlineGuestScheduledPump(_ context: UnsafeMutableRawPointer?) {
    _scheduledPump(Unmanaged<_GuestPump>.fromOpaque(context!).takeRetainedValue())
}
