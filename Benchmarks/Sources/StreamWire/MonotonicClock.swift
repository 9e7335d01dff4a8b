#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `CLOCK_MONOTONIC` in nanoseconds: one clock for the whole machine on Linux, so a stamp taken in one process can be
/// subtracted from a stamp taken in another.
///
/// Thread-safe. Not `ContinuousClock`: on Linux that reads `CLOCK_BOOTTIME`, and both processes must read the same one
/// by name.
public func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// Blocks the calling thread until `CLOCK_MONOTONIC` reaches `deadline` (nanoseconds): an absolute deadline, so a late
/// wake-up does not push back the ones after it.
///
/// Thread-safe; blocks, so call it on a thread of its own, never on the concurrency pool.
public func sleepUntil(monotonicNanoseconds deadline: Int64) {
    var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
}
