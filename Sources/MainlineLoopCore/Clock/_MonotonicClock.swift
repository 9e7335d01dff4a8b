#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one clock of every real loop: `CLOCK_MONOTONIC` in nanoseconds, the clock libuv's `uv_hrtime` reads, so that
/// deadlines taken here and libuv's loop time agree. One read for `MainLoop`, `EventLoop`, the flight recorder and the
/// watchdog.
///
/// Thread-safe.
package enum _MonotonicClock {
    /// The loop clock now.
    @inline(__always)
    package static func now() -> LoopInstant {
        LoopInstant(nanoseconds: Int64(bitPattern: nanoseconds()))
    }

    /// The loop clock now, in nanoseconds.
    @inline(__always)
    package static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
