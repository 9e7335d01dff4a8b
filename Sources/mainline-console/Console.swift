import Foundation
import MainlineInspectorSchema

/// The console's modes, from a command line to an exit status.
enum Console {
    /// Runs the console with `arguments` (the program's name first) and returns its exit status.
    static func main(_ arguments: [String]) -> Int32 {
        let options: ConsoleOptions
        do {
            options = try ConsoleOptions(parsing: Array(arguments.dropFirst()))
        } catch {
            printError("\(error.description) (see --help)")
            return 64
        }
        do throws(InspectorConnection.Failure) {
            switch options.mode {
            case .help:
                print(ConsoleOptions.usage)
                return 0
            case .once(let json):
                let answer = try InspectorConnection(path: options.socketPath).ask(
                    "snapshot",
                    as: InspectorSnapshot.self
                )
                if json {
                    print(answer.line)
                } else {
                    printAllViews(answer.document)
                }
                return 0
            case .dump(let file):
                let answer = try InspectorConnection(path: options.socketPath)
                    .ask("recorder", as: InspectorRecorderDocument.self)
                do {
                    try Data((answer.line + "\n").utf8).write(to: URL(fileURLWithPath: file))
                } catch {
                    printError("cannot write the recorders to \(file): \(error.localizedDescription)")
                    return 1
                }
                let loops = answer.document.loops
                let events = loops.reduce(0) { $0 + $1.events.count }
                print(
                    "mainline-console: wrote the flight recorders of \(loops.count) loops (\(events) events) to \(file)"
                )
                return 0
            case .live(let interval):
                return try LiveConsole(path: options.socketPath, intervalMilliseconds: interval).run()
            }
        } catch {
            printError(error.description)
            return 1
        }
    }

    /// `--once` without `--json`: every view, one after another, as plain text.
    private static func printAllViews(_ snapshot: InspectorSnapshot) {
        var rates = IterationRates()
        rates.add(snapshot, fallbackTime: 0)
        print("mainline-console  \(snapshot.process ?? "?") (pid \(Formatting.integer(snapshot.pid)))")
        for view in ConsoleView.allCases {
            print("")
            print("== \(view.title) ==")
            for line in view.lines(snapshot, rates: rates) { print(line) }
        }
    }

    /// One line on standard error, after the program's name.
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("mainline-console: \(message)\n".utf8))
    }
}
