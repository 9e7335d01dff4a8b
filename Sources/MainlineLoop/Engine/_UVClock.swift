import CLibUV
import MainlineLoopCore

/// libuv's loop clock seen from Mainline's nanosecond deadlines (`_MonotonicClock`, the clock `uv_hrtime` reads).
///
/// ``timeout(untilDeadline:on:)`` must be called on the thread that runs `loop`.
package enum _UVClock {
    /// The timeout to arm a uv timer with so that it fires at `deadline` (nanoseconds on `uv_hrtime`'s clock), never
    /// before.
    ///
    /// libuv's clock has millisecond resolution and may read a coarse clock, so the loop time is refreshed first and
    /// the deadline rounded up to the next millisecond. A deadline already passed gives 0.
    static func timeout(untilDeadline deadline: Int64, on loop: UnsafeMutablePointer<uv_loop_t>) -> UInt64 {
        uv_update_time(loop)
        let deadlineMs = deadline / 1_000_000 + (deadline % 1_000_000 == 0 ? 0 : 1)
        return UInt64(max(0, deadlineMs - Int64(uv_now(loop))))
    }
}
