import Foundation
import MainlineLoop

/// Posts `body` to `loop` and waits until it has run. Returns `false` instead when the loop refuses the post or the
/// waiting task is cancelled: a test past its time limit must end, not wait on a loop that will never run the job (a
/// cancelled service may return before its loop runs anything). Call it from any task.
func postAndWait(to loop: MainLoop, _ body: @escaping @MainActor @Sendable () -> Void) async -> Bool {
    let waiter = Waiter()
    return await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            waiter.set(continuation)
            // After the continuation is in place: a cancellation that came first is seen here, a later one through
            // the handler.
            if Task.isCancelled { waiter.finish(false) }
            if !loop.post({
                body()
                waiter.finish(true)
            }) {
                waiter.finish(false)
            }
        }
    } onCancel: {
        waiter.finish(false)
    }
}

/// The continuation of one ``postAndWait(to:_:)``, resumed once by whichever comes first. Thread-safe.
private final class Waiter: @unchecked Sendable {  // `continuation` is guarded by `lock`
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Bool, Never>?
    private var outcome: Bool?

    func set(_ continuation: CheckedContinuation<Bool, Never>) {
        let early: Bool? = lock.withLock {
            if let outcome { return outcome }
            self.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func finish(_ ran: Bool) {
        let waiting: CheckedContinuation<Bool, Never>? = lock.withLock {
            guard outcome == nil else { return nil }
            outcome = ran
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: ran)
    }
}
