#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A `pthread_mutex_t` on the heap, so its address never moves.
///
/// Mainline uses `pthread_mutex_t` rather than `Synchronization.Mutex`: on this toolchain `Mutex` produces
/// false ThreadSanitizer reports, which would hide real ones.
///
/// All operations on `_Lock` are thread-safe. Usable from inlinable code, so that generic users in other modules
/// (the mailboxes) can be specialised.
@usableFromInline
package final class _Lock: @unchecked Sendable {
    // @unchecked Sendable: the only state is the mutex, which is what makes other state safe to share.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @usableFromInline
    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        // Adaptive: a contended lock spins briefly before it sleeps in the kernel. Every Mainline critical section is a
        // few dozen instructions, so a producer that finds the loop holding the lock (or the other way round) gets it in
        // a spin instead of a futex sleep and a context switch each (measured on the post path: a third of its time).
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        let rc = pthread_mutex_init(mutex, &attributes)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable
    package func lock() { pthread_mutex_lock(mutex) }

    @inlinable
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` with the lock held.
    @inlinable
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value guarded by a `_Lock`.
///
/// All operations on `_Locked` are thread-safe.
package final class _Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only inside `lock`.
    private let lock = _Lock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
