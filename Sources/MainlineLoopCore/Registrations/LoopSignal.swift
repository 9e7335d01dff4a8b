#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A POSIX signal a loop can handle on the main actor.
///
/// `LoopSignal` is a value type; all operations on it are thread-safe.
///
/// ```swift
/// loop.onSignal(.sigterm) { _ in loop.stop() }
/// ```
public struct LoopSignal: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The signal number.
    public let rawValue: Int32

    /// Wraps a signal number. `SIGKILL` and `SIGSTOP` cannot be handled by any process.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// `SIGINT`: interrupt from the terminal (Ctrl-C).
    public static let sigint = LoopSignal(rawValue: SIGINT)
    /// `SIGTERM`: the polite request to terminate that service managers send.
    public static let sigterm = LoopSignal(rawValue: SIGTERM)
    /// `SIGHUP`: hang-up, by convention "reload your configuration" for daemons.
    public static let sighup = LoopSignal(rawValue: SIGHUP)
    /// `SIGUSR1`: user-defined; by convention here "log what the loop is doing" (see ``LoopSnapshot``).
    public static let sigusr1 = LoopSignal(rawValue: SIGUSR1)
    /// `SIGUSR2`: user-defined.
    public static let sigusr2 = LoopSignal(rawValue: SIGUSR2)

    /// The signal's name (`SIGINT`, `SIGTERM`, `SIGHUP`, `SIGUSR1`, `SIGUSR2`), or `signal N` for others.
    public var description: String {
        switch rawValue {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        default: "signal \(rawValue)"
        }
    }
}
