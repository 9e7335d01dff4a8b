import Foundation
import Mainline

/// The host: renders the top screen (or the modal over it) as text, and hands typed commands to the view model of
/// the screen that is showing. Lives on the main loop.
@MainActor
final class Terminal {
    /// The stack of steps, and the modal slot over it.
    let flow = NavigationStackWithModal()
    private let bag = DisposeBag()
    private var finished = false

    init() {
        flow.stack.top.observe { [weak self] _ in self?.render() }.addTo(bag)
        flow.modal.modal.observe { [weak self] _ in self?.render() }.addTo(bag)
    }

    /// The screen the user sees: the modal if one is shown, else the top of the stack.
    private var visible: Screen? { flow.modal.modal.current ?? flow.stack.top.current }

    func render() {
        // Once the program has said its last words, screens closing behind them are not drawn.
        guard !finished, let screen = visible as? TextScreen else { return }
        write("\n── \(screen.name) ──\n\(screen.body)\n> ")
    }

    /// One typed line.
    func handle(_ line: String) {
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        guard let command = words.first?.lowercased() else { return write("> ") }
        let argument = words.count > 1 ? words[1].trimmingCharacters(in: .whitespaces) : ""
        switch command {
        case "quit":
            finish("Bye.")
        case "help":
            write("Commands depend on the screen; quit leaves at any time.\n> ")
        default:
            guard let screen = visible as? TextScreen else { return write("nothing to do here\n> ") }
            if let error = screen.model.handle(command, argument) { write("! \(error)\n> ") }
        }
    }

    /// A line that is not a screen.
    func note(_ text: String) {
        write("\(text)\n")
    }

    /// Prints `text` and stops the loop: the program ends.
    func finish(_ text: String) {
        guard !finished else { return }
        finished = true
        write("\n\(text)\n")
        MainLoop.main.stop()
    }

    private func write(_ text: String) {
        // Unbuffered: the prompt has no newline, and a terminal must show it at once.
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
