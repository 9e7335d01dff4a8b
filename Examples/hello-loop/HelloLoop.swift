import ArgumentParser
import Mainline

/// hello-loop's command line: `--seconds N`, and `--help`.
///
/// A synchronous `ParsableCommand`, not an `AsyncParsableCommand`: `main.swift` calls ``main()``, which parses the
/// arguments and calls ``run()`` right there, on the main thread and outside any task, so the loop can take the main
/// thread (owner mode). An async command would run in a task, and `MainLoop.run()` traps there.
struct HelloLoop: ParsableCommand {
    /// The longest `--seconds`: one day.
    static let maximumSeconds = 86_400

    static let configuration = CommandConfiguration(
        commandName: "hello-loop",
        abstract: "A first Mainline program: a main loop that owns the main thread.",
        discussion: """
            Three worker threads post their progress into the main loop while a timer on the loop prints a tick \
            every 500 ms; a DispatchQueue.main block and a Task { @MainActor in } run inside the loop too. Each \
            worker step and each tick is printed as it happens.

            Press Ctrl-C to stop it (or pass --seconds): the loop stops cleanly and the program prints how many \
            ticks and worker steps ran.
            """
    )

    @Option(help: "Stop by itself after this many seconds (1 to 86400) instead of running until Ctrl-C.")
    var seconds: Int?

    func validate() throws {
        if let seconds, !(1...Self.maximumSeconds).contains(seconds) {
            throw ValidationError("--seconds must be a number in 1...\(Self.maximumSeconds), got '\(seconds)'")
        }
    }

    func run() {
        // `main()` calls this synchronously on the main thread, which is the main actor's; the loop needs both.
        MainActor.assumeIsolated { helloLoop(seconds: seconds) }
    }
}
