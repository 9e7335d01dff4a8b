import Atomics

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The runtime's global-enqueue hook, through which `_VirtualTimeTasks` takes jobs of virtual-time tasks and of
// exploration runs (`_TaskLane`): `swift_task_enqueueGlobal_hook`, one of the runtime's public hook variables
// (`ConcurrencyHooks.def`), found with `dlsym`, installed once and never removed, chained to the hook installed before
// it or to the runtime's own function.
//
// It is the only enqueue hook the Swift 6.3 runtime consults on Linux (measured: a test program counting every hook's
// calls through a main-actor `Task { }`, a `Task.detached { }` and `Task.sleep` saw only this one called). Main-actor
// enqueues go to the Swift main executor directly, and sleeps to the global executor's own timer, past
// `swift_task_enqueueMainExecutor_hook` and the delay and deadline hooks; the executor factory that would route them is
// SPI on this toolchain.
extension _VirtualTimeTasks {
    private typealias Original = @convention(thin) (UnownedJob) -> Void
    private typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    /// The hook installed before ours (a thin function pointer's address; 0 for none); stored before ours is, never
    /// changed after.
    private static let previousGlobal = ManagedAtomic(0)

    /// Whether a hook has anything to do: a task is taken in or a lane is watching.
    @inline(__always)
    private static var active: Bool {
        count.load(ordering: .acquiring) > 0 || _TaskLane.watching.load(ordering: .relaxed) > 0
    }

    /// Installs the hook, once. Thread-safe.
    package static func installHooks() {
        state.withLock { installIfNeeded(&$0) }
    }

    /// Installs the hook unless `state` says it is. Call it with the state's lock held.
    static func installIfNeeded(_ state: inout State) {
        guard !state.installed else { return }
        state.installed = true
        let image = dlopen(nil, RTLD_NOW)
        if let hook = variable(image, "swift_task_enqueueGlobal_hook", Hook.self, saving: previousGlobal) {
            hook.pointee = { job, original in
                if _VirtualTimeTasks.active, _VirtualTimeTasks.intercept(job) { return }
                if let previous = _VirtualTimeTasks.previous(_VirtualTimeTasks.previousGlobal, Hook.self) {
                    previous(job, original)
                } else {
                    original(job)
                }
            }
        }
    }

    /// The hook variable `name` as a pointer to `type`, after saving its current value in `previous`; `nil` when the
    /// runtime does not export it.
    private static func variable<T>(
        _ image: UnsafeMutableRawPointer?,
        _ name: String,
        _ type: T.Type,
        saving previous: ManagedAtomic<Int>
    ) -> UnsafeMutablePointer<T?>? {
        guard let symbol = dlsym(image, name) else { return nil }
        let hook = symbol.assumingMemoryBound(to: T?.self)
        let before = hook.pointee.map { Int(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self)) } ?? 0
        previous.store(before, ordering: .releasing)
        return hook
    }

    /// The hook saved in `previous`, as `type`; `nil` for none.
    @inline(__always)
    private static func previous<T>(_ previous: ManagedAtomic<Int>, _ type: T.Type) -> T? {
        UnsafeRawPointer(bitPattern: previous.load(ordering: .acquiring)).map { unsafeBitCast($0, to: T.self) }
    }
}
