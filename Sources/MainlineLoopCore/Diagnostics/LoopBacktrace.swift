/// The call stack of a thread at one moment, innermost frame first.
///
/// All operations on `LoopBacktrace` are thread-safe: it is a value, and its frames are already symbolicated.
///
/// A stall report carries one: the stack of the loop thread while one job held it, read from the watchdog's thread.
/// Frame `#0` is where the thread was when it was interrupted; each later frame is the return address of a call that
/// was still in progress. Names are demangled Swift names (`Dashboard.Workers.spin() -> ()`) or C names; frames whose
/// function cannot be named still say which binary or library holds them.
///
/// ```
/// #0 0x00007f3a1c2e4545 clock_nanosleep + 197 in libc.so.6
/// #1 0x00007f3a1c2e8e53 nanosleep + 19 in libc.so.6
/// #2 0x000055d1c0a1b2c3 Dashboard.Workers.spin() -> () + 42 in dashboard
/// ```
///
/// - Note: It is best effort. Functions the compiler inlined have no frame of their own (their code is named after the
///   function they were inlined into); a stripped binary names only its exported functions (glibc's internal ones, such
///   as its futex wait and thread start, have no name); code without unwind information ends the stack early, unless
///   it is the interrupted function itself, past which the capture follows frame pointers.
public struct LoopBacktrace: Sendable, Hashable, CustomStringConvertible {
    /// The frames, innermost first.
    public var frames: [Frame]

    /// A backtrace of the given frames.
    ///
    /// - Parameter frames: The frames, innermost first.
    package init(frames: [Frame]) {
        self.frames = frames
    }

    /// One line per frame, `#<index> <frame>`, innermost first.
    public var description: String {
        frames.enumerated().map { "#\($0.offset) \($0.element)" }.joined(separator: "\n")
    }
}
