import Testing

@testable import mainline_console

/// The console's command line: the three modes, their flags, and a line naming what is wrong otherwise.
@Suite("mainline-console command line")
struct ConsoleOptionsTests {
    @Test(arguments: [
        (["/tmp/a.sock"], ConsoleOptions(mode: .live(intervalMilliseconds: 500), socketPath: "/tmp/a.sock")),
        (
            ["--interval", "100", "a.sock"],
            ConsoleOptions(mode: .live(intervalMilliseconds: 100), socketPath: "a.sock")
        ),
        (["--once", "--json", "a.sock"], ConsoleOptions(mode: .once(json: true), socketPath: "a.sock")),
        (["a.sock", "--json", "--once"], ConsoleOptions(mode: .once(json: true), socketPath: "a.sock")),
        (["--once", "a.sock"], ConsoleOptions(mode: .once(json: false), socketPath: "a.sock")),
        (["--dump", "out.json", "a.sock"], ConsoleOptions(mode: .dump(file: "out.json"), socketPath: "a.sock")),
        (["--", "-odd.sock"], ConsoleOptions(mode: .live(intervalMilliseconds: 500), socketPath: "-odd.sock")),
        (["--help"], ConsoleOptions(mode: .help, socketPath: "")),
        (["-h", "whatever"], ConsoleOptions(mode: .help, socketPath: "")),
    ])
    func aCommandLineIsReadAsItsMode(arguments: [String], options: ConsoleOptions) throws {
        #expect(try ConsoleOptions(parsing: arguments) == options)
    }

    @Test(arguments: [
        ([], "which socket? Give the path the process serves its inspector on"),
        (["a.sock", "b.sock"], "one socket at a time, got 2: a.sock b.sock"),
        (["--interval"], "--interval needs a number of milliseconds"),
        (["--interval", "fast", "a.sock"], "--interval needs a number of milliseconds from 50 to 60000, got 'fast'"),
        (["--interval", "10", "a.sock"], "--interval needs a number of milliseconds from 50 to 60000, got '10'"),
        (["--dump"], "--dump needs the file to write the flight recorders to"),
        (
            ["--dump", "x", "--once", "a.sock"],
            "--dump writes the recorders and exits; it takes no --once, --json or --interval"
        ),
        (["--once", "--interval", "100", "a.sock"], "--interval is for the live view, not --once"),
        (["--json", "a.sock"], "--json goes with --once"),
        (["--colour", "a.sock"], "unknown option '--colour'"),
    ])
    func aBadCommandLineIsRefusedNamingWhatIsWrong(arguments: [String], message: String) {
        #expect(throws: ConsoleOptions.UsageError(description: message)) { try ConsoleOptions(parsing: arguments) }
    }
}
