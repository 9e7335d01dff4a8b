// Terminal — the tty: raw mode (termios) and the alternate screen while the dashboard runs, and back to how it was
// found on exit, whether by `q`, end of input or SIGINT. Also the ANSI sequences the renderer writes: `ESC[row;1H`
// moves to the start of a row, `ESC[2K` erases it.

import Foundation
import Mainline

/// The process's terminal. Must be used on the main actor.
@MainActor
final class Terminal {
    /// The settings found at start, put back by ``restore()``; `nil` when standard input is not a terminal.
    private var original: termios?
    private var isFullScreen = false

    /// The terminal's size in rows and columns, if standard output is a terminal.
    static var size: (rows: Int, columns: Int)? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_row), Int(size.ws_col))
    }

    /// Switches to raw input (keys arrive one by one, unechoed; Ctrl-C still raises SIGINT) and to the alternate
    /// screen, with the cursor hidden.
    func enterFullScreen() {
        var settings = termios()
        if tcgetattr(STDIN_FILENO, &settings) == 0 {
            original = settings
            settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
            // One byte at a time, no timeout.
            withUnsafeMutableBytes(of: &settings.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
        }
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
        isFullScreen = true
    }

    /// Leaves the alternate screen, shows the cursor and puts the input settings back. Idempotent.
    func restore() {
        if isFullScreen {
            write("\u{1B}[?25h\u{1B}[?1049l")
            isFullScreen = false
        }
        if var original {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            self.original = nil
        }
    }

    /// Writes `text` at once, unbuffered.
    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// The sequence that replaces screen row `row` (from 1) with `text`.
    static func line(_ row: Int, _ text: String) -> String {
        "\u{1B}[\(row);1H\u{1B}[2K" + text
    }
}

/// Reads standard input byte by byte on a thread of its own and posts each key into the loop; end of input posts
/// `onEnd`.
///
/// - Parameters:
///   - onKey: Runs on the loop with each byte read.
///   - onEnd: Runs on the loop once input has ended.
func startReadingKeys(
    onKey: @escaping @MainActor @Sendable (UInt8) -> Void,
    onEnd: @escaping @MainActor @Sendable () -> Void
) {
    let thread = Thread {
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            let key = byte
            MainLoop.main.post { onKey(key) }
        }
        MainLoop.main.post(onEnd)
    }
    thread.name = "keys"
    thread.start()
}
