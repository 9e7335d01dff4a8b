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

    /// The signal's name (`SIGINT`, `SIGTERM`, `SIGHUP`), or `signal N` for others.
    public var description: String {
        switch rawValue {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(rawValue)"
        }
    }
}
