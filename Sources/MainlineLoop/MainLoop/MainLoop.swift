import CLibUV
import CMainlineShims
import Dispatch
import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The process's main loop: a libuv event loop that hosts the main actor.
///
/// ``post(_:fileID:line:)``, ``stop()``, ``attachAsGuest()``, ``state``, ``propagatesServiceContext`` and ``waitUntilStopped()``
/// are thread-safe; ``run()`` must be called from a synchronous `main` on the process main thread; everything else
/// must be used on the main actor.
///
/// Every callback the loop runs — timers, posted work, settle notifications, signal handlers — runs on the
/// main actor, and every main-actor job and `DispatchQueue.main` block of the process runs on the loop too.
/// Who drives the loop is the hosting mode (see ``State``):
///
/// - **Owner mode**: a program built around Mainline gives the loop its main thread. ``run()`` runs libuv
///   there and drains the dispatch main queue inside it, until ``stop()``:
///
///   ```swift
///   // main.swift — a synchronous main
///   import Mainline
///
///   let loop = MainLoop.main
///   loop.onSignal(.sigint) { _ in loop.stop() }
///   loop.scheduleRepeating(every: .seconds(1)) { _ in print("tick") }
///   loop.run()          // returns after stop()
///   ```
///
/// - **Guest mode**: when the main thread belongs to someone else — an `async` main, XCTest, Swift Testing,
///   a NIO or Hummingbird app — libuv is pumped from the dispatch main queue. ``attachAsGuest()`` makes that
///   explicit; using the loop while it is idle (posting, scheduling) attaches it as a guest automatically.
///
///   ```swift
///   @main struct Service {
///       static func main() async throws {
///           MainLoop.main.attachAsGuest()
///           MainLoop.main.post { print("on the main actor, inside the loop") }
///           try await runTheRestOfTheService()
///       }
///   }
///   ```
///
/// In both modes callbacks are serialized on the main actor. The main actor is not always the main thread:
/// in guest mode under an `async` main or Swift Testing, it is a dispatch worker thread. Ask "am I on the loop?"
/// with `MainActor.assumeIsolated` or `dispatchPrecondition(condition: .onQueue(.main))`, never with thread
/// identity.
///
/// - Important: Inside the loop, `DispatchQueue.main` work is drained one libdispatch snapshot at a time, and
///   a snapshot cannot be split: a flood of hundreds of thousands of `DispatchQueue.main.async` blocks delays
///   timers until the snapshot is done. Mainline's own ``post(_:fileID:line:)`` is budgeted per iteration
///   (`LoopBudgets.postsPerIteration`) and never starves timers; prefer it for high-volume traffic.
public final class MainLoop: Loop, @unchecked Sendable {
    // @unchecked Sendable: `core` is main-actor isolated except its thread-safe `posts`; `lifecycle` is
    // protected by its lock; `hasLeftIdle` is protected by the main actor.

    /// The process's main loop.
    public static let main = MainLoop(isMain: true)

    package let core: _LoopCore
    /// Whether this is ``main``: a post to it goes through `_postToMainLoop(_:site:)` (see `MainLoop+Posting.swift`).
    /// Thread-safe.
    @usableFromInline let isMain: Bool
    let lifecycle = _Locked(_Lifecycle())
    /// A main-actor cache of "the lifecycle is past `.idle`", which never becomes false again.
    // Unchecked exclusivity: read in place on every timer scheduled, never held across a call out.
    @exclusivity(unchecked) @MainActor private var hasLeftIdle = false

    /// Shows the loop to an inspector (`LoopInspector`): the registry holds this handle weakly, never the loop.
    private var inspectionHandle: _LoopInspectionHandle?

    /// Creates a loop of its own, for the package's tests: a process has one main loop, ``main``.
    ///
    /// - Parameters:
    ///   - budgets: The loop's budgets.
    ///   - isMain: Whether this is ``main`` (what an inspector calls it).
    package init(budgets: LoopBudgets = .default, isMain: Bool = false) {
        core = _LoopCore(budgets: budgets, loopName: "MainLoop")
        self.isMain = isMain
        core.owner = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        core.clock = { _MonotonicClock.now() }
        // Written before `self` is shared; only ever called on the main actor.
        core.needsAttention = { [unowned self] in self.coreNeedsAttention() }
        core.signalWatchDidChange = { [unowned self] signal, watched in
            self.currentDriver?.setSignal(signal, watched: watched)
        }
        // Every loop shows itself to an inspector (`LoopInspector`), through a handle the registry holds weakly.
        let lifecycle = self.lifecycle
        inspectionHandle = _InspectionRegistry.shared.registerMainLoop(
            core: core,
            state: { lifecycle.withLock { $0.state } },
            isMain: isMain
        )
    }

    // MARK: Any thread

    /// Where the loop is in its life: idle, hosted as a guest or as owner, stopping, or stopped.
    public var state: State { lifecycle.withLock { $0.state } }

    /// Hosts the loop from the dispatch main queue, for processes whose main thread belongs to someone else.
    ///
    /// Thread-safe and idempotent: does nothing when the loop is already hosted (in either mode) or stopped.
    /// Use it in an `async` main, a test suite, or a NIO or Hummingbird application. A synchronous `main` that
    /// calls ``run()`` later may have attached the loop as a guest by using it first; `run()` then takes over.
    public func attachAsGuest() {
        // The guest starts under the lifecycle lock: `run()` takes a guest over under the same lock, so it never sees
        // one half started. Started after the lock, by a thread other than the main one (a post from a worker that
        // found the loop idle), the guest could install its waker *after* `run()` had detached its pump and installed
        // the owner's: every later wake-up went to a cancelled pump, and the owner loop slept forever.
        lifecycle.withLock {
            guard case .startGuest(let driver) = $0.attachAsGuest(makeDriver: makeDriver) else { return }
            startGuest(driver)
        }
    }

    /// Stops the loop. Thread-safe and idempotent.
    ///
    /// From this call on ``post(_:fileID:line:)`` returns `false`. On the loop, the work already posted runs, pending
    /// settle notifications are delivered, timers and signal handlers are cancelled, and every libuv handle is
    /// closed; then ``run()`` returns (owner mode) and ``waitUntilStopped()`` resumes. A stopped loop stays
    /// stopped. To bound how long a backlog of posts may delay the stop, use ``stop(drainDeadline:)``.
    public func stop() {
        stop(deadline: nil)
    }

    /// Stops the loop, running already-posted work only until `drainDeadline` has passed. Thread-safe; the first
    /// call to `stop` or `stop(drainDeadline:)` decides the deadline, later calls do nothing.
    ///
    /// As ``stop()``, except that the posted work still waiting when the deadline passes is released unrun, and
    /// reported: a warning through the `mainline.loop` logger and the `mainline_loop_posts_discarded` metric (when
    /// instrumented). Settle, the shutdown hooks and the closing of handles follow as usual. A job that is running
    /// when the deadline passes finishes.
    ///
    /// ```swift
    /// loop.onSignal(.sigterm) { _ in loop.stop(drainDeadline: .seconds(2)) }
    /// ```
    ///
    /// - Parameter drainDeadline: How long from now the loop keeps running posted work; zero or less runs none.
    public func stop(drainDeadline: Duration) {
        stop(deadline: .at(_MonotonicClock.now() + drainDeadline))
    }

    private func stop(deadline: _JobQueue.DrainDeadline?) {
        let action = lifecycle.withLock {
            $0.stop(
                closePosts: {
                    core.posts.close(drainDeadline: deadline)
                    return core.posts.hasIncoming
                },
                makeDriver: makeDriver
            )
        }
        switch action {
        case .none, .shuttingDown:
            break
        case .stoppedWhileIdle(let waiters):
            for waiter in waiters { waiter.resume() }
        case .drainWhileIdle(let driver):
            startGuest(driver)
        }
    }

    /// Suspends until the loop has stopped and closed everything it opened.
    ///
    /// Thread-safe. Returns at once when the loop is already stopped.
    public func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let registered = lifecycle.withLock { $0.addWaiter(continuation) }
            if !registered { continuation.resume() }
        }
    }

    /// The loop's monotonic clock (`CLOCK_MONOTONIC`, nanoseconds). Thread-safe.
    ///
    /// Explicitly `nonisolated`: it would otherwise be inferred main-actor from `SerialLoop.now`, which it satisfies.
    public nonisolated var now: LoopInstant {
        _Escape.note(.realClockRead, "MainLoop.now")
        return _MonotonicClock.now()
    }

    /// The loop's clock as a Swift `Clock`: ``now``'s time, and sleeps woken by this loop's timers. Thread-safe.
    ///
    /// ```swift
    /// try await Task.sleep(for: .milliseconds(250), clock: MainLoop.main.clock)
    /// ```
    public nonisolated var clock: LoopClock {
        LoopClock(
            source: _MainActorLoopClockSource(
                loop: self,
                now: { _MonotonicClock.now() },
                resolution: .milliseconds(1),
                realTime: true
            )
        )
    }

    // MARK: Owner mode

    /// Runs the loop on the process main thread until ``stop()``: owner mode.
    ///
    /// Call it from a synchronous `main` (a `main.swift` without top-level `await`, or a `@main` type with
    /// `static func main()` that is not `async`). Inside, libuv runs on the main thread and drains the
    /// dispatch main queue, so `DispatchQueue.main.async`, `Task { @MainActor in }` and
    /// `await MainActor.run {}` from any thread run inside the loop, in one FIFO with each other.
    ///
    /// - Precondition: Called on the process main thread, outside any task, and not while the loop is already
    ///   running in owner mode. Anything else traps with a message that says what to do instead: hosts that own
    ///   the main thread themselves use ``attachAsGuest()``.
    /// - Note: Called on a loop that has stopped, `run()` reports to `Diagnostics` and returns at once.
    public func run() {
        precondition(
            mainline_is_main_thread(),
            """
            MainLoop.run() must be called on the process main thread (it was called on thread \
            \(mainline_thread_id()) of process \(getpid())). Owner mode needs the main thread because it drains \
            the dispatch main queue. Call run() from a synchronous main, or host the loop with \
            MainLoop.main.attachAsGuest() instead.
            """
        )
        precondition(
            withUnsafeCurrentTask(body: { $0 == nil }),
            """
            MainLoop.run() was called from an async context (a task, or an async main). An async main ends in \
            dispatchMain(), which gives the main thread away, so the loop cannot own it. Either make main \
            synchronous (no top-level await) and call run() there, or call MainLoop.main.attachAsGuest() and \
            let the async main keep the main thread.
            """
        )
        MainActor.assumeIsolated { runAsOwner() }
    }

    @MainActor
    private func runAsOwner() {
        switch lifecycle.withLock({ $0.run(makeDriver: makeDriver) }) {
        case .alreadyStopped:
            Diagnostics.report(
                .runAfterStop,
                "MainLoop.run() was called after stop(); a stopped loop cannot run again. Returning at once."
            )
        case .alreadyRunning:
            preconditionFailure(
                "MainLoop.run() was called while the loop is already running in owner mode (a nested run); the loop cannot run inside itself. Post the work instead."
            )
        case .run(let driver, let takeOverFromGuest):
            hasLeftIdle = true
            if takeOverFromGuest {
                driver.guestPump?.detach()
                driver.guestPump = nil
            }
            driver.installOwnerModeWaker()
            driver.startDrainingMainQueue()
            driver.runUntilClosed()
            // Main-queue work submitted before the loop closed runs now rather than never.
            if mainline_dispatch_acknowledge_main_queue_wakeup() {
                mainline_dispatch_drain_main_queue()
            }
        }
    }

    // MARK: Main actor: the Loop protocol

    /// The work budgets of one iteration.
    @MainActor
    public var budgets: LoopBudgets {
        get { core.budgets }
        set { core.budgets = newValue }
    }

    /// Marks `notification` pending for this iteration's settle phase. See `Loop.requestSettle(_:)`.
    @MainActor @discardableResult
    public func requestSettle(_ notification: SettleNotification) -> Bool {
        attachIfIdle()
        return core.requestSettle(notification)
    }

    /// Asks, from any thread, for `request` to be settled in the iteration that sees it: no posted job, one
    /// compare-and-swap, and one wake-up when the loop sleeps. Thread-safe. See `Loop.requestSettle(fromAnyThread:)`.
    ///
    /// Like a post, a request made before the loop was hosted starts it as a guest.
    @discardableResult
    public nonisolated func requestSettle(fromAnyThread request: any SettleRequest) -> Bool {
        switch core.requestSettle(fromAnyThread: request) {
        case .enqueued:
            return true
        case .enqueuedWithoutWaker:
            attachAsGuest()
            // A waker installed by the attach wakes the loop for jobs already waiting, not for this request.
            _ = core.posts.wake()
            return true
        case .closed, .full:
            return false
        }
    }

    /// Runs `handler` on the main actor whenever `signal` arrives. See `Loop.onSignal(_:_:)`.
    @MainActor @discardableResult
    public func onSignal(
        _ signal: LoopSignal,
        _ handler: @escaping @MainActor (LoopSignal) -> Void
    )
        -> SignalRegistration
    {
        attachIfIdle()
        return core.onSignal(signal, handler)
    }

    /// Whether a loop iteration is on the stack right now (for the package's tests and probes).
    @MainActor
    package var isInsideIteration: Bool { currentDriver?.isIterating ?? false }

    /// How wake-ups reached the loop so far: async-handle callbacks (another thread's `uv_async_send`) and, in guest
    /// mode, pumps queued on the main queue to wake it. For the package's tests; `nil` before the loop starts or once it
    /// stopped.
    @MainActor
    package var wakeUpCounts: (asyncCallbacks: Int, queuedPumps: Int)? {
        guard let driver = currentDriver else { return nil }
        return (driver.engine.asyncCallbacks, driver.guestPump?.wakeUpsQueued ?? 0)
    }

    // MARK: Internals

    private func makeDriver() -> _MainLoopDriver {
        _MainLoopDriver(core: core, instance: ObjectIdentifier(self)) { [unowned self] _ in
            let waiters = self.lifecycle.withLock { $0.driverFinished() }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Starts `driver` as a guest: its pump first, then the waker that queues the pump.
    ///
    /// Called under the lifecycle lock when attaching (see ``attachAsGuest()``), so that `run()` sees the pump and
    /// installs its own waker after this one. It takes the job queue's lock inside: lifecycle, then queue, as `stop`.
    private func startGuest(_ driver: _MainLoopDriver) {
        let pump = _GuestPump(driver: driver)
        // Before `start()` nothing runs the driver yet, and `run()` takes the loop over (and reads the pump) only after
        // taking the lifecycle lock the caller holds (a stopping loop is never taken over): handing it the pump here
        // cannot race.
        driver.guestPump = pump
        // Start the pump before installing the waker: with posts already waiting, the waker queues a pump at once,
        // and that pump (on the main queue) must not race `start()` (on this thread) over the dispatch timer —
        // `start()` resets it to "never", which would silently disarm a deadline the pump had just armed.
        pump.start()
        // Guest mode: one pump queued on the main queue per batch, and nothing else, so a post reaches the loop in
        // one hop. A post from inside one of the loop's phases needs none: the pump looks for posts after every run.
        core.posts.installWaker(loopMark: UInt(bitPattern: core.owner)) { pump.pumpSoon() }
    }

    @MainActor
    func attachIfIdle() {
        guard !hasLeftIdle else { return }
        attachAsGuest()
        hasLeftIdle = true
    }

    @MainActor
    private var currentDriver: _MainLoopDriver? { lifecycle.withLock { $0.driver } }

    /// The core's requests changed while no iteration is running: in guest mode, pump soon.
    @MainActor
    private func coreNeedsAttention() {
        guard let driver = currentDriver, !driver.isIterating else { return }
        driver.guestPump?.schedulePump()
    }
}
