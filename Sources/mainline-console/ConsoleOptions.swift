/// The console's command line, parsed by hand (the package adds no argument parser for one small tool).
///
/// `ConsoleOptions` is a value type; all operations on it are thread-safe.
struct ConsoleOptions: Equatable {
    /// What the console does once attached.
    enum Mode: Equatable {
        /// The live view in the terminal, refreshed every `interval` milliseconds.
        case live(intervalMilliseconds: Int)
        /// One snapshot, printed as the inspector's JSON document (`json`) or as every view in plain text.
        case once(json: Bool)
        /// The flight recorders, written to a file.
        case dump(file: String)
        /// The usage text.
        case help
    }

    var mode: Mode
    /// The inspector's socket.
    var socketPath: String

    /// The default refresh interval of the live view, in milliseconds.
    static let defaultInterval = 500
    /// The refresh intervals the live view accepts, in milliseconds.
    static let intervalRange = 50...60_000

    static let usage = """
        usage: mainline-console [--interval MS] SOCKET       live view (keys: 1-7 or o j m v t s b switch views,
                                                             f freezes, q quits)
               mainline-console --once [--json] SOCKET       one snapshot: every view as text, or the JSON document
               mainline-console --dump FILE SOCKET           write the flight recorders to FILE for a bug report

        SOCKET is the path a process serves its loop inspector on (LoopInspector.start(socketPath:); the examples'
        --inspect PATH). --interval is the live view's refresh in milliseconds (50 to 60000, default 500).
        Exit status: 0; 1 when the console cannot attach, is refused or cannot read the answer; 64 for a bad
        command line.
        """

    /// Why a command line is not one the console takes; the description is the line it prints.
    struct UsageError: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    /// Parses the arguments after the program's name.
    ///
    /// - Throws: ``UsageError`` naming the flag or argument that is wrong.
    init(parsing arguments: [String]) throws(UsageError) {
        var interval: Int?
        var once = false
        var json = false
        var dump: String?
        var help = false
        var paths: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h":
                help = true
            case "--once":
                once = true
            case "--json":
                json = true
            case "--interval":
                guard let value = remaining.popFirst() else {
                    throw UsageError(description: "--interval needs a number of milliseconds")
                }
                guard let milliseconds = Int(value), Self.intervalRange.contains(milliseconds) else {
                    throw UsageError(
                        description: "--interval needs a number of milliseconds from \(Self.intervalRange.lowerBound) "
                            + "to \(Self.intervalRange.upperBound), got '\(value)'"
                    )
                }
                interval = milliseconds
            case "--dump":
                guard let file = remaining.popFirst(), !file.isEmpty else {
                    throw UsageError(description: "--dump needs the file to write the flight recorders to")
                }
                dump = file
            case "--":
                paths.append(contentsOf: remaining)
                remaining = []
            default:
                if argument.hasPrefix("-") && argument.count > 1 {
                    throw UsageError(description: "unknown option '\(argument)'")
                }
                paths.append(argument)
            }
        }
        if help {
            self.init(mode: .help, socketPath: "")
            return
        }
        guard paths.count == 1, let path = paths.first, !path.isEmpty else {
            throw UsageError(
                description: paths.isEmpty
                    ? "which socket? Give the path the process serves its inspector on"
                    : "one socket at a time, got \(paths.count): \(paths.joined(separator: " "))"
            )
        }
        if let dump {
            guard !once, !json, interval == nil else {
                throw UsageError(
                    description: "--dump writes the recorders and exits; it takes no --once, --json or --interval"
                )
            }
            self.init(mode: .dump(file: dump), socketPath: path)
        } else if once {
            guard interval == nil else { throw UsageError(description: "--interval is for the live view, not --once") }
            self.init(mode: .once(json: json), socketPath: path)
        } else {
            guard !json else { throw UsageError(description: "--json goes with --once") }
            self.init(mode: .live(intervalMilliseconds: interval ?? Self.defaultInterval), socketPath: path)
        }
    }

    init(mode: Mode, socketPath: String) {
        self.mode = mode
        self.socketPath = socketPath
    }
}
