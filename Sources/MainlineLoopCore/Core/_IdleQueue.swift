import Atomics

/// The idle bodies a loop waits to run: any thread registers, the loop takes them all in its idle phase.
///
/// All operations on `_IdleQueue` are thread-safe.
///
/// The loop asks ``hasPending`` once per iteration, before it blocks: one relaxed atomic load, and nothing else
/// while no body is registered — posts never touch this queue, so the post path pays nothing for idle work. The
/// bodies themselves live in their ``IdleRegistration``s, protected by this queue's lock, so that `cancel()` from
/// any thread and the loop's take never race.
///
/// Registrations ask for a wake-up (``add(_:wakes:)``) when made from outside the loop's phases: the loop may be
/// blocked and must come round to its idle phase. Registrations made by the loop's own callbacks do not: the
/// iteration they run in ends in an idle phase anyway, and one made by an idle body waits for the next iteration
/// the loop has for another reason — which is what keeps a self-re-registering body from spinning the loop.
package final class _IdleQueue: @unchecked Sendable {
    // @unchecked Sendable: `pending`, `wakeRequested`, `isClosed` and every registration's `body` are protected by
    // `lock`; `count` is atomic.
    private let lock = _Lock()
    private var pending: [IdleRegistration] = []
    private var wakeRequested = false
    private var isClosed = false
    /// `pending.count`, readable without the lock (written under it).
    private let count = ManagedAtomic<Int>(0)

    package init() {}

    /// Whether a body waits for the idle phase. One acquiring load (a plain load on x86-64 and arm64's `ldar`): what an iteration pays when no body is registered.
    ///
    /// A registration from another thread that this load misses wakes the loop itself (see ``add(_:wakes:)``).
    @inline(__always)
    package var hasPending: Bool { count.load(ordering: .acquiring) > 0 }

    /// How many bodies wait for the idle phase (cancelled ones excluded), for snapshots.
    package var pendingCount: Int { count.load(ordering: .acquiring) }

    /// Whether a registration from outside the loop asked for an idle phase that has not run yet.
    package var isWakeRequested: Bool {
        guard hasPending else { return false }
        return lock.withLock { wakeRequested }
    }

    /// Registers `body`. Returns the registration (already spent when the queue is closed) and whether the caller
    /// must wake the loop: `wakes` was asked for and this is the first wake-up asked since the last idle phase.
    package func add(
        _ body: _IdleBody,
        site: LoopSite,
        wakes: Bool
    ) -> (IdleRegistration, mustWake: Bool) {
        let registration = IdleRegistration(body, site: site, queue: self)
        let mustWake: Bool? = lock.withLock {
            guard !isClosed else { return nil }
            pending.append(registration)
            count.store(pending.count, ordering: .releasing)
            guard wakes, !wakeRequested else { return false }
            wakeRequested = true
            return true
        }
        guard let mustWake else {
            registration.body = nil  // never shared: no lock needed
            return (registration, false)
        }
        return (registration, mustWake)
    }

    /// Takes every pending registration, in registration order, for the idle phase; each body is taken from its
    /// registration only when its turn comes (``take(_:)``), so that an earlier body can still cancel a later one.
    package func takeAll() -> [IdleRegistration] {
        lock.withLock {
            wakeRequested = false
            count.store(0, ordering: .releasing)
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
    }

    /// Takes the body of a registration that ``takeAll()`` returned, leaving it spent; `nil` if it was cancelled.
    package func take(_ registration: IdleRegistration) -> _IdleBody? {
        lock.withLock {
            defer { registration.body = nil }
            return registration.body
        }
    }

    /// Refuses registrations from now on and releases every pending body unrun. Returns how many were released.
    @discardableResult
    package func close() -> Int {
        // Release the closures outside the lock: what they capture may deinit and register again.
        let released: [_IdleBody] = lock.withLock {
            isClosed = true
            wakeRequested = false
            let bodies = pending.compactMap { registration in
                defer { registration.body = nil }
                return registration.body
            }
            pending = []
            count.store(0, ordering: .releasing)
            return bodies
        }
        return released.count
    }

    package func isActive(_ registration: IdleRegistration) -> Bool {
        lock.withLock { registration.body != nil }
    }

    package func cancel(_ registration: IdleRegistration) {
        let body: _IdleBody? = lock.withLock {
            guard let body = registration.body else { return nil }
            registration.body = nil
            if let index = pending.firstIndex(where: { $0 === registration }) { pending.remove(at: index) }
            count.store(pending.count, ordering: .releasing)
            return body
        }
        _ = body  // released here, outside the lock
    }
}
