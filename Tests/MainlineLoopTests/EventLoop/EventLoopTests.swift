import CMainlineShims
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// Every `EventLoop` suite, nested here so that they run one test at a time.
///
/// Serialized because the lifecycle suite compares `_UVResources.live(.eventLoop)` with a baseline: no other
/// `EventLoop` may be alive while it measures. The counts are kept per owner, so the `MainLoop` suites (which run in
/// parallel with these) do not disturb the measurement.
@Suite("EventLoop", .serialized, .timeLimit(.minutes(5)))
enum EventLoopTests {}

/// An actor whose executor is an `EventLoop`: it records where each of its calls ran.
actor LoopBound {
    let loop: EventLoop
    private(set) var calls = 0
    private(set) var callsOffTheLoop = 0
    private(set) var threads: Set<Int64> = []

    init(loop: EventLoop) { self.loop = loop }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    func touch() {
        calls += 1
        if !loop.inEventLoop { callsOffTheLoop += 1 }
        threads.insert(mainline_thread_id())
    }

    func touchAcrossSuspension() async {
        touch()
        await Task.yield()
        touch()
    }
}

extension EventLoop {
    /// Runs `body` on the loop and returns what it returned.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            let accepted = post { done.resume(returning: body()) }
            precondition(accepted, "the loop refused a post: it was stopped too early")
        }
    }

    /// The kernel thread id of the loop's thread.
    func threadID() async -> Int64 {
        await onLoop { mainline_thread_id() }
    }
}

/// The calling thread's name.
func currentThreadName() -> String {
    var buffer = [CChar](repeating: 0, count: 16)
    let rc = mainline_get_current_thread_name(&buffer, buffer.count)
    precondition(rc == 0, "pthread_getname_np failed: \(rc)")
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}

/// Something to capture in a closure, to see when the closure is released.
final class Tracker: Sendable {}

/// A weak reference that can cross threads.
final class WeakBox<Object: AnyObject & Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `object` is written once before the box is shared, then only read (a weak load is atomic).
    weak var object: Object?

    init(_ object: Object?) { self.object = object }
}

/// A one-shot gate a test awaits: opened by the code under test, or by the test's cancellation (its time limit), so
/// that a stalled loop shows up as failed expectations instead of a hang.
final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var wasCancelled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = _Locked(State())

    /// Opens the latch; idempotent.
    func open() {
        open(byCancellation: false)
    }

    private func open(byCancellation: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.isOpen else { return nil }
            state.isOpen = true
            state.wasCancelled = byCancellation
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Suspends until ``open()`` or until the task is cancelled.
    ///
    /// - Returns: `true` when ``open()`` opened it; `false` when the task was cancelled first.
    func wait() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isOpen = state.withLock { state in
                    if !state.isOpen { state.waiter = continuation }
                    return state.isOpen
                }
                if isOpen { continuation.resume() }
            }
        } onCancel: {
            open(byCancellation: true)
        }
        return state.withLock { !$0.wasCancelled }
    }
}
