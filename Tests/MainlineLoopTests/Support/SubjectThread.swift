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

/// A real, joinable thread for a test to watch from outside: it runs `body`, which calls ``enter()`` once it is inside
/// the function the test looks for, and then works or waits until ``release()``.
///
/// All operations on `SubjectThread` are thread-safe.
///
/// Waits are bounded and fail with what the thread was doing, never by hanging the suite.
final class SubjectThread: @unchecked Sendable {
    // @unchecked Sendable: `handleStorage` is written once on the subject thread before `entered` is signalled and read
    // only after waiting for that signal; `thread` is written by `init` before the thread can finish and read only by
    // `finish`, on the test's thread; the rest are atomics and semaphores.

    /// What the thread is doing, for failure messages.
    enum Phase: Int, CustomStringConvertible {
        case starting, entered, returned

        var description: String {
            switch self {
            case .starting: "starting (not yet in its function)"
            case .entered: "inside its function"
            case .returned: "returned from its function"
            }
        }
    }

    let name: String
    /// How far the thread's work got: what counts is up to its function (sleeps cut short, a lock acquired).
    let progress = ManagedAtomic<Int>(0)
    /// Whether the test has released the thread, for a loop that must make no call but the atomic load (reading
    /// `isReleased` goes through `ManagedAtomic`, which calls into libswiftCore and, under ThreadSanitizer, `memset`).
    let released = UnsafeAtomic<Bool>.create(false)
    /// The same, behind `isReleased`.
    private let managedReleased = ManagedAtomic<Bool>(false)
    private let phaseStorage = ManagedAtomic<Int>(Phase.starting.rawValue)
    private let entered = DispatchSemaphore(value: 0)
    private let returned = DispatchSemaphore(value: 0)
    private let joined = ManagedAtomic<Bool>(false)
    private var handleStorage: _ThreadHandle?
    private var thread = pthread_t()
    private let body: @Sendable (SubjectThread) -> Void

    /// How long a test waits for a thread to get somewhere before it fails.
    static let patience: Duration = mainline_is_thread_sanitized() != 0 ? .seconds(60) : .seconds(20)

    /// Starts a thread that runs `body(self)`.
    init(_ name: String, _ body: @escaping @Sendable (SubjectThread) -> Void) {
        self.name = name
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(
            &thread,
            nil,
            { context in
                let subject = Unmanaged<SubjectThread>.fromOpaque(context!).takeRetainedValue()
                subject.body(subject)
                subject.phaseStorage.store(Phase.returned.rawValue, ordering: .releasing)
                subject.returned.signal()
                return nil
            },
            context
        )
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    deinit {
        released.destroy()
    }

    var phase: Phase { Phase(rawValue: phaseStorage.load(ordering: .acquiring))! }

    /// Whether the test has released the thread. Read by its function.
    var isReleased: Bool { managedReleased.load(ordering: .relaxed) }

    /// Called by the thread's function once it is where the test looks for it.
    func enter() {
        handleStorage = .current()
        phaseStorage.store(Phase.entered.rawValue, ordering: .releasing)
        entered.signal()
    }

    /// Waits until the thread is inside its function; its handle, or `nil` after recording why not.
    func handleOnceEntered(sourceLocation: SourceLocation = #_sourceLocation) -> _ThreadHandle? {
        guard entered.wait(timeout: .now() + .nanoseconds(Int(Self.patience.mainlineNanoseconds))) == .success else {
            Issue.record(
                "\(name) did not enter its function within \(Self.patience): \(phase)",
                sourceLocation: sourceLocation
            )
            return nil
        }
        entered.signal()  // Later callers find it entered too.
        return handleStorage
    }

    /// Releases the thread (its function returns at its next check).
    func release() {
        released.store(true, ordering: .relaxed)
        managedReleased.store(true, ordering: .relaxed)
    }

    /// Releases the thread, waits until its function has returned, and joins it (once; later calls return at once).
    /// With `wakingItWithACapture`, a capture cuts a sleep of the thread short so that it sees the release at once.
    /// Returns false after recording why not (the thread is then left running: joining it would hang the suite).
    @discardableResult
    func finish(wakingItWithACapture: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        release()
        // The handle is written before the phase leaves `starting`.
        if wakingItWithACapture, phase != .starting, let handle = handleStorage {
            _ = LoopBacktrace.capture(of: handle)
        }
        guard returned.wait(timeout: .now() + .nanoseconds(Int(Self.patience.mainlineNanoseconds))) == .success else {
            Issue.record(
                "\(name) did not return within \(Self.patience) of its release: \(phase), progress \(progress.load(ordering: .relaxed))",
                sourceLocation: sourceLocation
            )
            return false
        }
        returned.signal()  // Later callers find it returned too.
        if !joined.exchange(true, ordering: .relaxed) {
            pthread_join(thread, nil)
        }
        return true
    }

    /// Polls `condition` (a thread's progress, a kernel state) until it holds, yielding the CPU between polls. Returns
    /// false after recording `what` and the thread's phase.
    func wait(
        until what: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () -> Bool
    ) -> Bool {
        let deadline = ContinuousClock.now + Self.patience
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record(
                    "\(name): not \(what) within \(Self.patience): \(phase), progress \(progress.load(ordering: .relaxed))",
                    sourceLocation: sourceLocation
                )
                return false
            }
            sched_yield()
        }
        return true
    }

    /// The system call the thread is blocked in (`/proc/self/task/<tid>/syscall`'s first field), or nil when it is
    /// running or the file cannot be read.
    func currentSystemCall(of handle: _ThreadHandle) -> Int? {
        let fd = open("/proc/self/task/\(handle.kernelID)/syscall", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        return text.split(separator: " ").first.flatMap { Int($0) }
    }
}
