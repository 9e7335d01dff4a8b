import CLibUV
import Dispatch
import MainlineLoopCore

/// A secondary loop: a libuv event loop on a thread of its own, for I/O and background work.
///
/// All operations on `EventLoop` are thread-safe.
///
/// The main loop (``MainLoop``) hosts the main actor and the MVVM layers; an `EventLoop` serves everything that
/// should not run there — sockets, files, protocol state machines, background timers. It runs posted closures
/// (``post(_:fileID:line:)``), timers (``schedule(after:fileID:line:_:)``, ``scheduleRepeating(every:fileID:line:_:)``) and Swift concurrency jobs: it is
/// a `SerialExecutor`, so an actor can live on it, and a `TaskExecutor`, so a task can prefer it. All of them run
/// serialized on the loop's thread, which the initializer starts and ``stop()`` ends.
///
/// An actor on the loop, called from anywhere, and reached from the loop's own callbacks:
///
/// ```swift
/// actor Connection {
///     let loop: EventLoop
///     private var received = 0
///
///     init(loop: EventLoop) { self.loop = loop }
///
///     // Every job of this actor runs on the loop's thread.
///     nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
///
///     func didReceive(_ count: Int) { received += count }
/// }
///
/// let loop = EventLoop(name: "io")
/// let connection = Connection(loop: loop)
/// await connection.didReceive(512)                         // hops onto the loop
/// loop.schedule(after: .seconds(1)) {
///     connection.assumeIsolated { $0.didReceive(0) }       // already on the loop: no hop
/// }
/// let checksum = await Task(executorPreference: loop) {   // nonisolated work on the loop's thread
///     computeChecksum()
/// }.value
/// loop.stop()
/// await loop.waitUntilStopped()
/// ```
///
/// Guarantees:
/// - Closures posted from one thread run in the order they were posted, each exactly once, at most
///   `LoopBudgets.postsPerIteration` per iteration, so that a flood never starves timers.
/// - Timers fire in deadline order; timers with equal deadlines fire in the order they were scheduled.
/// - ``stop()`` is final: work already posted still runs, timers are cancelled, every libuv handle is closed, the
///   libuv loop is closed and the thread exits.
///
/// - Important: A job for an actor or task on the loop that arrives after the loop has completely stopped traps
///   (see ``enqueue(_:)``): stop a loop only once the actors and tasks that use it are done.
/// - Note: Dropping the last reference to a running loop stops it (work already posted still runs). The loop's
///   thread does not keep the `EventLoop` alive, but every posted job for an actor or task on it does.
public final class EventLoop: Sendable {
    // Sendable: every stored property is immutable; the driver and the switch are thread-safe.

    /// The loop's name, given to its thread (Linux shows the first 15 bytes, e.g. in `top -H`).
    public let name: String
    let driver: _Driver
    /// Shows the loop to an inspector (`LoopInspector`): the registry holds this handle weakly, never the loop.
    private let inspectionHandle: _LoopInspectionHandle
    /// Whether posts and timers carry the caller's `ServiceContext` (see `EventLoop+ServiceContext.swift`).
    let serviceContext = _ServiceContextSwitch()

    /// Creates a loop and starts its thread.
    ///
    /// The thread runs until ``stop()``, or until the loop is no longer referenced.
    ///
    /// - Parameter name: The loop's name, also the thread's name (cut to 15 bytes by Linux).
    public convenience init(name: String = "mainline-event-loop") {
        self.init(name: name, budgets: .default)
    }

    /// Creates a loop with budgets of its own and starts its thread.
    ///
    /// An `EventLoop` has no settle phase: it uses `LoopBudgets.postsPerIteration` (posted closures and executor
    /// jobs per iteration) and `LoopBudgets.maxPendingPosts` (a limit on posted closures waiting; executor jobs
    /// are never refused). Refusals are counted in `mainline_loop_posts_rejected` with a `loop` dimension, through
    /// the process's metrics system.
    ///
    /// - Parameters:
    ///   - name: The loop's name, also the thread's name (cut to 15 bytes by Linux).
    ///   - budgets: The loop's budgets.
    public convenience init(name: String = "mainline-event-loop", budgets: LoopBudgets) {
        self.init(name: name, budgets: budgets, resources: .eventLoop)
    }

    /// Creates a loop whose libuv loop and handles are counted for `resources` (`_UVResources`): the inspector's loop
    /// is counted apart from the others.
    package init(name: String, budgets: LoopBudgets, resources: _UVResources.Owner) {
        self.name = name
        driver = _Driver(name: name, budgets: budgets, resources: resources)
        driver.start()
        // Every loop shows itself to an inspector (`LoopInspector`), through a handle the registry holds weakly.
        inspectionHandle = _InspectionRegistry.shared.registerEventLoop(driver: driver, name: name)
    }

    /// Creates a loop with a post budget of its own (for the package's tests).
    package convenience init(name: String, postsPerIteration: Int) {
        self.init(name: name, budgets: LoopBudgets(postsPerIteration: postsPerIteration))
    }

    deinit {
        driver.stop()
    }

    /// The loop's libuv loop, for handles a layer above opens on it (the inspector's sockets): use it only on the loop's
    /// thread (in its posts and timers), and close those handles (`_UVResources.close(_:for:)`) before the loop stops.
    package var uvLoop: UnsafeMutablePointer<uv_loop_t> { driver.uvLoop }

    /// Whether the caller runs on this loop's thread: inside one of its posts, timers or jobs.
    ///
    /// On the loop's thread the caller is isolated to the loop (and to every actor whose executor it is).
    public var inEventLoop: Bool { _RunningLoop.isRunning(identity: _RunningLoop.eventLoopMark(driver.identity)) }

    /// The loop's monotonic clock: `uv_hrtime`, the same clock as ``MainLoop/now``.
    public var now: LoopInstant {
        _Escape.note(.realClockRead, "EventLoop.now")
        return _MonotonicClock.now()
    }

    /// The loop's clock as a Swift `Clock`: ``now``'s time, and sleeps woken by this loop's timers on its thread.
    /// Thread-safe.
    public var clock: LoopClock { LoopClock(source: _EventLoopClockSource(loop: self)) }

    /// Runs `body` on the loop's thread, soon.
    ///
    /// Takes no lock, never blocks and never runs `body` synchronously, not even when called on
    /// the loop. Bodies posted from one thread run in the order they were posted, each exactly once; each is
    /// released right after it ran.
    ///
    /// ```swift
    /// loop.post { connection.assumeIsolated { $0.flush() } }
    /// ```
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - fileID: The caller's file, kept with the job as its site (leave the default).
    ///   - line: The caller's line (leave the default).
    /// - Returns: `true` if `body` will run; `false` once ``stop()`` has been called, or when the loop already holds
    ///   `LoopBudgets.maxPendingPosts` posts (counted), in which case `body` is released without running;
    ///   ``tryPost(_:fileID:line:)`` says which.
    @discardableResult
    public func post(
        _ body: consuming @escaping @Sendable () -> Void,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) -> Bool {
        driver.post(serviceContext.carry(job: body), site: LoopSite(fileID: fileID, line: line)) == .accepted
    }

    /// Runs `body` on the loop's thread, soon, with `site` as where it came from. See `SerialLoop.post(_:from:)`.
    /// Thread-safe.
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - site: Where the work comes from.
    /// - Returns: `true` if `body` will run.
    @discardableResult
    public func post(_ body: consuming @escaping @Sendable () -> Void, from site: LoopSite) -> Bool {
        driver.post(serviceContext.carry(job: body), site: site) == .accepted
    }

    /// Runs `body` on the loop's thread, soon — or says why it will not: the loop is full or stopped.
    ///
    /// Thread-safe; otherwise exactly ``post(_:fileID:line:)``, for producers that shed or retry when the loop falls
    /// behind.
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    /// - Returns: `PostResult.accepted` if `body` will run; `PostResult.full` or `PostResult.stopped` if it was
    ///   released without running.
    public func tryPost(
        _ body: consuming @escaping @Sendable () -> Void,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) -> PostResult {
        driver.post(serviceContext.carry(job: body), site: LoopSite(fileID: fileID, line: line))
    }

    /// Runs `body` on the loop's thread, soon — or says why it will not — with `site` as where it came from. See
    /// `SerialLoop.tryPost(_:from:)`. Thread-safe.
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - site: Where the work comes from.
    /// - Returns: What became of `body`.
    public func tryPost(_ body: consuming @escaping @Sendable () -> Void, from site: LoopSite) -> PostResult {
        driver.post(serviceContext.carry(job: body), site: site)
    }

    /// Stops the loop. Idempotent; never blocks.
    ///
    /// From this call on ``post(_:fileID:line:)`` returns `false` and pending timers are cancelled (a timer callback already
    /// running finishes). The loop thread then runs everything already posted — and jobs of tasks still running on
    /// the loop, until none is left — closes every handle and the libuv loop, resumes ``waitUntilStopped()`` and
    /// exits.
    public func stop() {
        driver.stop()
    }

    /// Stops the loop; posted closures still waiting when `drainDeadline` has passed are released unrun. Idempotent
    /// (the first stop decides); never blocks.
    ///
    /// As ``stop()``, except for the deadline. What is released is reported: a warning through the `mainline.loop`
    /// logger and `mainline_loop_posts_discarded{loop=<name>}`. Executor jobs still run after the deadline — their
    /// tasks must finish — and a closure already running finishes.
    ///
    /// - Parameter drainDeadline: How long from now posted closures may still start; zero or less runs none.
    public func stop(drainDeadline: Duration) {
        driver.stop(deadline: now + drainDeadline)
    }

    /// How many posted closures ``stop(drainDeadline:)`` released unrun (final once the loop has stopped), for the
    /// package's tests.
    package var postsDiscarded: Int { driver.releasedAtDeadline }

    /// Suspends until the loop has stopped: every handle and the libuv loop are closed and the thread is done with
    /// them. Returns at once when the loop has already stopped.
    ///
    /// - Important: Don't await this from an actor or task that runs on this loop: it resumes after the loop can no
    ///   longer run anything, so the resumption would be a job enqueued on a stopped loop, which traps.
    public func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let registered = driver.lifecycle.withLock { $0.addWaiter(.suspended(continuation)) }
            if !registered { continuation.resume() }
        }
    }

    /// Stops the loop and blocks the calling thread until it has stopped: for code that cannot `await`.
    ///
    /// Same as ``stop()`` followed by ``waitUntilStopped()``. In async code prefer those: blocking a thread of the
    /// cooperative pool can starve other tasks.
    ///
    /// - Precondition: Not called on the loop's own thread; that would wait for the thread to finish while being
    ///   that thread, and traps with a message saying so.
    public func stopAndWait() {
        precondition(
            !inEventLoop,
            """
            EventLoop.stopAndWait() was called on the thread of EventLoop '\(name)' itself: it waits for that \
            thread to finish, which can never happen while it waits. Call stop() on the loop instead, or call \
            stopAndWait() from another thread.
            """
        )
        stop()
        let stopped = DispatchSemaphore(value: 0)
        if driver.lifecycle.withLock({ $0.addWaiter(.blocked(stopped)) }) { stopped.wait() }
    }

    /// What `uv_loop_close` returned once the loop has stopped (0: every handle was closed), for the package's
    /// tests.
    package var loopCloseResult: Int32? { driver.lifecycle.withLock { $0.closeResult } }
}

extension EventLoop: CustomStringConvertible {
    /// `EventLoop(<name>)`.
    public var description: String { "EventLoop(\(name))" }
}
