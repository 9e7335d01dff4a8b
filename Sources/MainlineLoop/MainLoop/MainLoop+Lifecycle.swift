import Dispatch
import MainlineLoopCore

extension MainLoop {
    /// Where a main loop is in its life. Read it with ``MainLoop/state``.
    ///
    /// `State` is a value type; all operations on it are thread-safe.
    public enum State: Hashable, Sendable, CustomStringConvertible {
        /// Created; nothing has run it yet. Posts are accepted and wait.
        case idle
        /// Pumped from the dispatch main queue by someone else's main thread (``MainLoop/attachAsGuest()``).
        case guest
        /// Running on the process main thread inside ``MainLoop/run()``.
        case owner
        /// ``MainLoop/stop()`` was called: posts are refused, already-posted work is finishing.
        case stopping
        /// Shut down: every handle is closed. Terminal.
        case stopped

        /// The state's name, as `state` is logged: `idle`, `guest`, `owner`, `stopping` or `stopped`.
        public var description: String {
            switch self {
            case .idle: "idle"
            case .guest: "guest"
            case .owner: "owner"
            case .stopping: "stopping"
            case .stopped: "stopped"
            }
        }
    }

    /// The lifecycle state machine: what each request does in each state, as actions performed outside the lock —
    /// except `.startGuest`, which ``MainLoop/attachAsGuest()`` performs under it, so that `run()` can never take over
    /// a guest that is still starting.
    ///
    /// `idle → (guest → owner? | owner) → stopping → stopped`, and `idle → stopped` when stopped before
    /// anything ran it. Guest → owner happens when a synchronous `main` used the loop (which attached it as a
    /// guest) before calling `run()`: `run()` takes the loop over.
    struct _Lifecycle {
        enum Mode { case guest, owner }

        private enum Phase {
            case idle
            case running(_MainLoopDriver, Mode)
            case stopping(_MainLoopDriver, Mode)
            case stopped
        }

        private var phase: Phase = .idle
        private var waiters: [_StopWaiter] = []

        var state: State {
            switch phase {
            case .idle: .idle
            case .running(_, .guest): .guest
            case .running(_, .owner): .owner
            case .stopping: .stopping
            case .stopped: .stopped
            }
        }

        /// The driver while running or stopping.
        var driver: _MainLoopDriver? {
            switch phase {
            case .running(let driver, _), .stopping(let driver, _): driver
            case .idle, .stopped: nil
            }
        }

        enum AttachAction {
            case none
            case startGuest(_MainLoopDriver)
        }

        mutating func attachAsGuest(makeDriver: () -> _MainLoopDriver) -> AttachAction {
            guard case .idle = phase else { return .none }
            let driver = makeDriver()
            phase = .running(driver, .guest)
            return .startGuest(driver)
        }

        enum RunAction {
            case run(_MainLoopDriver, takeOverFromGuest: Bool)
            case alreadyRunning
            case alreadyStopped
        }

        mutating func run(makeDriver: () -> _MainLoopDriver) -> RunAction {
            switch phase {
            case .idle:
                let driver = makeDriver()
                phase = .running(driver, .owner)
                return .run(driver, takeOverFromGuest: false)
            case .running(let driver, .guest):
                phase = .running(driver, .owner)
                return .run(driver, takeOverFromGuest: true)
            case .running(_, .owner):
                return .alreadyRunning
            case .stopping, .stopped:
                return .alreadyStopped
            }
        }

        enum StopAction {
            case none
            /// The post queue is closed; the running driver will notice and shut down.
            case shuttingDown
            /// Never started and nothing was posted: stopped now. Resume these waiters.
            case stoppedWhileIdle([_StopWaiter])
            /// Never started, but posts were accepted: start this driver as a guest so it runs them, then
            /// shuts down (the post queue is already closed).
            case drainWhileIdle(_MainLoopDriver)
        }

        /// - Parameters:
        ///   - closePosts: Closes the post queue; returns whether accepted posts are still waiting.
        ///   - makeDriver: Creates a driver.
        mutating func stop(closePosts: () -> Bool, makeDriver: () -> _MainLoopDriver) -> StopAction {
            switch phase {
            case .idle:
                // Posts accepted while idle must still run exactly once: they need a driver.
                if closePosts() {
                    let driver = makeDriver()
                    phase = .stopping(driver, .guest)
                    return .drainWhileIdle(driver)
                }
                phase = .stopped
                defer { waiters = [] }
                return .stoppedWhileIdle(waiters)
            case .running(let driver, let mode):
                phase = .stopping(driver, mode)
                _ = closePosts()
                return .shuttingDown
            case .stopping, .stopped:
                return .none
            }
        }

        /// The driver closed everything. Returns the waiters to resume.
        mutating func driverFinished() -> [_StopWaiter] {
            switch phase {
            case .stopping, .running:
                phase = .stopped
            case .idle, .stopped:
                preconditionFailure("BUG DETECTED: a loop driver finished while the loop was \(state)")
            }
            defer { waiters = [] }
            return waiters
        }

        /// Registers a waiter; returns `false` (not registered) when already stopped.
        mutating func addWaiter(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
            if case .stopped = phase { return false }
            waiters.append(.suspended(continuation))
            return true
        }

        /// Registers a blocked thread (`stopAndWait()`); returns `false` (not registered: don't wait) when already
        /// stopped.
        mutating func addBlockedWaiter(_ semaphore: DispatchSemaphore) -> Bool {
            if case .stopped = phase { return false }
            waiters.append(.blocked(semaphore))
            return true
        }
    }
}
