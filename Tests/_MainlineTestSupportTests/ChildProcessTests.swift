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

    @Test func aGivenDescriptorIsItsStandardInput() async throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        // It reads one line, not to the end: another test's child, spawned meanwhile, may inherit the write end.
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        _ = "hello\n".withCString { write(ends[1], $0, 6) }
        close(ends[1])
        let child = try ChildProcess(
            "/bin/sh",
            ["-c", "read -r line; echo \"read $line\""],
            standardOutput: .capture,
            standardInput: ends[0]
        )
        #expect(await child.finish().standardOutput == "read hello\n")
    }

    @Test(arguments: [false, true])
    func aNewSessionMakesItTheLeaderOfItsOwnSessionAndGroup(newSession: Bool) async throws {
        // Fields 5 and 6 of /proc/<pid>/stat: the process group and the session.
        let script = #"read -r _ _ _ _ group session _ < /proc/$$/stat; echo "$group $session""#
        let child = try ChildProcess("/bin/sh", ["-c", script], standardOutput: .capture, newSession: newSession)
        let ids = await child.finish().standardOutput.split(separator: " ").compactMap {
            pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let expected = newSession ? [child.pid, child.pid] : [getpgrp(), getsid(0)]
        #expect(ids == expected)
    }

    @Test func aMissingProgramThrowsNamingIt() throws {
        #expect {
            _ = try ChildProcess("/nonexistent/program")
        } throws: { error in
            (error as? ChildProcess.SpawnError)?.description.hasPrefix("cannot start /nonexistent/program") == true
        }
    }
}
