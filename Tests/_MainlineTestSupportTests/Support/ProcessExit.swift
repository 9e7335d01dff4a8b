import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Waits until process `pid` — any process, not only a child — has exited, or until `bound` has passed with it still
/// running; returns whether it has exited (a process that no longer exists, or a zombie nobody has reaped yet, has).
///
/// It blocks in `poll(2)` on a pidfd, which the kernel makes readable when the process exits, so it returns the moment
/// that happens; the bound is only how long to wait for progress before failing. The wait runs on a thread of its own,
/// never on the concurrency pool. Callable from any thread.
func processExits(_ pid: pid_t, within bound: Duration) async -> Bool {
    await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
        Thread.detachNewThread { done.resume(returning: waitForExit(of: pid, within: bound)) }
    }
}

/// ``processExits(_:within:)`` on the calling thread, which it blocks.
private func waitForExit(of pid: pid_t, within bound: Duration) -> Bool {
    let fd = openPidfd(pid)
    guard fd >= 0 else { return errno == ESRCH }  // no such process: it has exited and been reaped
    defer { close(fd) }
    let deadline = ContinuousClock.now + bound
    while true {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return false }
        let milliseconds = Int32(clamping: Int((left / .milliseconds(1)).rounded(.up)))
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, milliseconds)
        if ready > 0 { return true }
        if ready < 0 && errno != EINTR { return false }
    }
}

/// `pidfd_open(pid, 0)` (Linux 5.3): glibc 2.36 declares it in `<sys/pidfd.h>`, which Swift's Glibc module does not
/// import, so it is looked up at run time; on an older C library, the raw system call (434 on every architecture,
/// as for every system call added since 5.1), through `syscall`, whose variadic declaration Swift does not import.
private func openPidfd(_ pid: pid_t) -> Int32 {
    typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
    typealias Syscall = @convention(c) (Int, Int, Int) -> Int
    // `dlopen(nil)` is the program's own handle: never unloaded, it needs no `dlclose`.
    let fd: Int32
    if let symbol = dlsym(dlopen(nil, RTLD_NOW), "pidfd_open") {
        fd = unsafeBitCast(symbol, to: PidfdOpen.self)(pid, 0)
    } else if let symbol = dlsym(dlopen(nil, RTLD_NOW), "syscall") {
        fd = Int32(truncatingIfNeeded: unsafeBitCast(symbol, to: Syscall.self)(434, Int(pid), 0))
    } else {
        errno = ENOSYS
        fd = -1
    }
    return fd
}
