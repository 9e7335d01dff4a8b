import Foundation
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("ChildProcess")
struct ChildProcessTests {
    @Test func itCollectsBothStreamsAndTheExitStatus() async throws {
        let result = try await ChildProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(result.status == 3)
        #expect(result.signal == nil)
        #expect(result.standardOutput == "out\n")
        #expect(result.standardError == "err\n")
    }

    @Test func standardInputIsEmpty() async throws {
        let result = try await ChildProcess.run("/bin/sh", ["-c", "wc -c"])
        #expect(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test func aSignalEndsItAsAShellReportsIt() async throws {
        let child = try ChildProcess("/bin/sh", ["-c", "echo ready; exec tail -f /dev/null"], standardOutput: .capture)
        #expect(child.nextOutputLine() == "ready")
        child.send(SIGTERM)
        let result = await child.finish()
        #expect(result.signal == SIGTERM)
        #expect(result.status == 128 + SIGTERM)
    }

    @Test func linesReadAsTheyComeAreNotLostToFinish() async throws {
        let child = try ChildProcess("/bin/sh", ["-c", "printf 'one\\ntwo\\nthree'"], standardOutput: .capture)
        #expect(child.nextOutputLine() == "one")
        let result = await child.finish()
        #expect(result.standardOutput == "two\nthree")
        #expect(result.status == 0)
    }

    @Test func aProgramOnThePathIsFoundWhenAsked() async throws {
        let result = try await ChildProcess.run("sh", ["-c", "exit 0"], searchPath: true)
        #expect(result.status == 0)
    }

    @Test func aMissingProgramThrowsNamingIt() throws {
        #expect {
            _ = try ChildProcess("/nonexistent/program")
        } throws: { error in
            (error as? ChildProcess.SpawnError)?.description.hasPrefix("cannot start /nonexistent/program") == true
        }
    }
}
