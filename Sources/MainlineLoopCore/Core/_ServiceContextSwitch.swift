import Atomics
import ServiceContextModule

/// A loop's switch for carrying the poster's `ServiceContext` into posted and scheduled work, and the wrapping that
/// carries it.
///
/// All operations on `_ServiceContextSwitch` are thread-safe.
///
/// Off (the default), each `carry` is one relaxed load of a flag and returns the body unchanged: the post path reads
/// no task-local and allocates nothing. On, it reads `ServiceContext.current` (a task-local read: the runtime looks up
/// the current task, or the thread's fallback storage outside a task) and wraps the body in
/// `ServiceContext.withValue(context) { … }` only when a context is current.
///
/// Why a switch (Benchmarks/HISTORY.md, "Tracing"): carrying a context costs about 3× a post (1-producer p50 about
/// 200 ns against 70) and 3 allocations — the wrapping closure and the task-local binding around the body on the
/// loop — which a service whose handlers always have a context would otherwise pay on every post without asking.
/// Reading with no context current is within noise of off in the post benchmark (the read alone measured 12–20 ns in
/// a micro-benchmark). Off is exactly free: no read, no allocation.
package final class _ServiceContextSwitch: Sendable {
    // Sendable: the only stored property is an atomic. Unmanaged, so that the post path's load is inlined: a
    // `ManagedAtomic` reaches its storage through a class-method call on every load.
    private let enabled = UnsafeAtomic<Bool>.create(false)

    package init() {}

    deinit { enabled.destroy() }

    /// Whether bodies carry the poster's context. Takes effect for posts and timers requested after the change.
    package var isOn: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    /// The context to carry: the current one, if the switch is on and a context is current.
    @inline(__always)
    package var contextToCarry: ServiceContext? {
        guard enabled.load(ordering: .relaxed) else { return nil }
        return ServiceContext.current
    }

    /// A posted main-actor body that runs with the poster's context current, or `body` itself.
    @inline(__always)
    package func carry(
        post body: consuming @escaping @MainActor @Sendable () -> Void
    ) -> @MainActor @Sendable () -> Void {
        guard let context = contextToCarry else { return body }
        return { [body] in ServiceContext.withValue(context) { body() } }
    }

    /// A main-actor timer body that runs with the scheduler's context current, or `body` itself.
    @inline(__always)
    package func carry(timer body: @escaping @MainActor () -> Void) -> @MainActor () -> Void {
        guard let context = contextToCarry else { return body }
        return { ServiceContext.withValue(context) { body() } }
    }

    /// A repeating main-actor timer body that runs with the scheduler's context current at every firing, or `body`.
    @inline(__always)
    package func carry(
        repeating body: @escaping @MainActor (ScheduledTask) -> Void
    ) -> @MainActor (ScheduledTask) -> Void {
        guard let context = contextToCarry else { return body }
        return { task in ServiceContext.withValue(context) { body(task) } }
    }

    /// A job for an `EventLoop`'s thread (a post or a one-shot timer) that runs with the poster's context current,
    /// or `body` itself.
    @inline(__always)
    package func carry(job body: consuming @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        guard let context = contextToCarry else { return body }
        return { [body] in ServiceContext.withValue(context) { body() } }
    }
}
