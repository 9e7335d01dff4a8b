import Foundation

/// Threads that burn CPU until stopped: a busy machine, inside the test, for races that only show when the server's
/// threads are preempted at bad moments (as when another build runs beside the tests).
///
/// Not API: `_MainlineTestSupport` serves Mainline's own tests and examples, and may change in any release.
///
/// All operations on `CPULoad` are thread-safe. Start it with ``init(threads:)``, stop it with ``stop()`` (the
/// threads end within about a millisecond); a test stops it in a `defer` so that no burner outlives the test.
public final class CPULoad: @unchecked Sendable {
    // @unchecked Sendable: `isStopped` is protected by `lock`.
    private let lock = NSLock()
    private var isStopped = false
    private let finished = DispatchGroup()

    /// Starts `threads` burners: by default one per core, so that every core is contended.
    public init(threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        for _ in 0..<threads {
            finished.enter()
            Thread.detachNewThread { [self] in
                var spin: UInt64 = 0
                while !stopped {
                    // About a millisecond of arithmetic between looks at the flag.
                    for step in 0..<200_000 { spin = spin &* 6_364_136_223_846_793_005 &+ UInt64(step) }
                }
                withExtendedLifetime(spin) {}
                finished.leave()
            }
        }
    }

    private var stopped: Bool { lock.withLock { isStopped } }

    /// Stops every burner and returns once all have ended. Idempotent.
    public func stop() {
        lock.withLock { isStopped = true }
        finished.wait()
    }
}
