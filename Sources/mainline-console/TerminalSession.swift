import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The terminal while the live view runs: raw input (keys one by one, unechoed; Ctrl-C still raises SIGINT), the
/// alternate screen with the cursor hidden, and — whatever ends the view, `q`, SIGINT, SIGTERM, SIGHUP or an error —
/// the terminal put back as it was found.
///
/// `TerminalSession` is **not** thread-safe: the console's one thread uses it. Signals reach that thread through
/// ``signals``, a pipe a dispatch source writes each signal's number to.
final class TerminalSession {
    /// The read end of the signal pipe: one byte per signal caught (SIGINT, SIGTERM, SIGHUP, SIGWINCH).
    let signals: Int32
    private let signalWriter: Int32
    private var sources: [any DispatchSourceSignal] = []
    private var original: termios?
    private var isFullScreen = false

    /// The signals the live view handles itself.
    static let handledSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]

    init() {
        var descriptors: [Int32] = [-1, -1]
        _ = pipe(&descriptors)
        signals = descriptors[0]
        signalWriter = descriptors[1]
        _ = fcntl(signals, F_SETFL, O_NONBLOCK)
        _ = fcntl(signalWriter, F_SETFL, O_NONBLOCK)
        _ = fcntl(signals, F_SETFD, FD_CLOEXEC)
        _ = fcntl(signalWriter, F_SETFD, FD_CLOEXEC)
    }

    deinit {
        restore()
        close(signals)
        close(signalWriter)
    }

    /// Catches the handled signals (they no longer end the process: the console restores the terminal first),
    /// switches to raw input if standard input is a terminal, and enters the alternate screen.
    func enter() {
        let writer = signalWriter
        for signal in Self.handledSignals {
            Glibc.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler {
                var byte = UInt8(truncatingIfNeeded: signal)
                _ = write(writer, &byte, 1)
            }
            source.resume()
            sources.append(source)
        }
        var settings = termios()
        if isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &settings) == 0 {
            original = settings
            settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
            withUnsafeMutableBytes(of: &settings.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
        }
        output("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
        isFullScreen = true
    }

    /// Leaves the alternate screen, shows the cursor, puts the input settings back and lets the signals end the
    /// process again. Idempotent.
    func restore() {
        if isFullScreen {
            output("\u{1B}[?25h\u{1B}[?1049l")
            isFullScreen = false
        }
        if var original {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            self.original = nil
        }
        for source in sources { source.cancel() }
        sources = []
        for signal in Self.handledSignals { Glibc.signal(signal, SIG_DFL) }
    }

    /// Replaces the screen with `lines`, each cut to the terminal's width, as many as fit.
    func draw(_ lines: [String]) {
        let (rows, columns) = Self.size
        // No line break after the last row (it would scroll), and one column spare (writing the last one wraps).
        let shown = lines.prefix(rows).map { String($0.prefix(max(columns - 1, 1))) + "\u{1B}[K" }
        let frame = "\u{1B}[H" + shown.joined(separator: "\r\n") + "\u{1B}[J"
        output(frame)
    }

    /// The terminal's rows and columns (24 × 80 when standard output is not a terminal).
    static var size: (rows: Int, columns: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else {
            return (24, 80)
        }
        return (Int(size.ws_row), Int(size.ws_col))
    }

    private func output(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
