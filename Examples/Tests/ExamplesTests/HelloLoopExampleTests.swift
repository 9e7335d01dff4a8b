import Testing
import _MainlineTestSupport

/// `hello-loop`, run as a user runs it: the built program, its output and its exit status.
@Suite("Example: hello-loop", .timeLimit(.minutes(2)))
struct HelloLoopExampleTests {
    @Test func helpNamesTheSecondsFlagSaysWhatItShowsAndHowToStopAndExitsZero() async throws {
        try await CommandLineChecks.expectHelp(
            "hello-loop",
            naming: ["--seconds"],
            mentioning: ["owns the main thread", "tick", "Ctrl-C"]
        )
    }

    @Test(arguments: [
        (["--seconds", "0"], "--seconds must be a number in 1...86400, got '0'"),
        (["--seconds", "soon"], "'--seconds <seconds>'"),
        (["--seconds"], "'--seconds <seconds>'"),
        (["--secs", "3"], "'--secs'"),
    ])
    func aBadFlagExitsWithStatus64NamingIt(arguments: [String], message: String) async throws {
        try await CommandLineChecks.expectUsageError("hello-loop", arguments, saying: message)
    }

    @Test func withSecondsItStopsItselfAndExitsZeroAfterTheLoopRanOnTheMainThread() async throws {
        let result = try await ChildProcess.run(ChildProcess.builtProduct("hello-loop"), ["--seconds", "1"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("hello-loop: running (Ctrl-C to stop)"))
        #expect(result.standardOutput.contains("DispatchQueue.main block ran inside the loop"))
        #expect(result.standardOutput.contains("1 s elapsed: stopping"))
        #expect(result.standardOutput.contains("stopped cleanly after"))
    }
}
