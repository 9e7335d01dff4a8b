// Needs a PostgreSQL server's programs, as MainlinePostgresTests does: the `Postgres` trait is the package's switch
// for "run the tests that start a real cluster" (`swift test --traits Postgres`).
#if Postgres
import Foundation
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A cluster never outlives the process that started it: its server stops and its folder is deleted however that
/// process ends, and a normal end leaves no reaper behind.
@Suite("PostgresTestCluster: nothing outlives the test process")
struct PostgresTestClusterTests {
    /// How `mainline-cluster-probe` ends while its cluster runs.
    enum Ending: String, CaseIterable, Sendable {
        case killed
        case trapped
        case exited
        case processGroupKilled = "process-group-killed"
    }

    /// How long the server and the reaper get to be gone once the probe has ended. They need well under a second on
    /// an idle machine; the bound is for a machine busy with builds, and is only reached when nothing happens.
    static let bound = Duration.seconds(120)

    @Test(arguments: Ending.allCases)
    func theClusterDiesWithTheProcessThatStartedItAndItsFolderIsDeleted(ending: Ending) async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"  // the trap ends the probe at once, with no backtrace to write
        let probe = try ChildProcess(
            ChildProcess.builtProduct("mainline-cluster-probe"),
            [ending.rawValue],
            environment: environment,
            standardOutput: .capture,
            standardError: .capture
        )
        var report: [String: String] = [:]
        while report["reaper"] == nil, let line = probe.nextOutputLine() {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { report[parts[0]] = parts[1] }
        }
        if ending == .killed { probe.send(SIGKILL) }
        let result = await probe.finish()
        guard let directory = report["directory"], let server = report["server"].flatMap({ pid_t($0) }), server > 0,
            let reaper = report["reaper"].flatMap({ pid_t($0) })
        else {
            Issue.record("the probe reported no running cluster: \(report), \(result)")
            return
        }
        switch ending {
        case .killed, .processGroupKilled: #expect(result.signal == SIGKILL, "\(result)")
        case .trapped: #expect(result.signal != nil, "\(result)")
        case .exited: #expect(result.status == 0 && result.signal == nil, "\(result)")
        }

        let serverGone = await processExits(server, within: Self.bound)
        let reaperGone = await processExits(reaper, within: Self.bound)
        let folderGone = !FileManager.default.fileExists(atPath: directory)
        #expect(
            serverGone && reaperGone && folderGone,
            """
            \(Self.bound) after the probe ended (\(ending.rawValue)), still there: \
            \(serverGone ? "" : "server \(server) (\(Self.commandLine(of: server))); ")\
            \(reaperGone ? "" : "reaper \(reaper) (\(Self.commandLine(of: reaper))); ")\
            \(folderGone ? "" : "folder \(directory)")
            """
        )
        Self.removeLeftovers(server: server, reaper: reaper, directory: directory)
    }

    @Test func aNormalEndStopsTheServerDeletesTheFolderAndLeavesNoReaper() async throws {
        let (directory, server, reaper) = try await PostgresTestCluster.with { cluster in
            let server = try #require(cluster.serverProcessID())
            #expect(kill(cluster.reaperProcessID, 0) == 0, "a running cluster has its reaper")
            return (cluster.directory, server, cluster.reaperProcessID)
        }
        // The reaper is the test process's child, reaped before `with` returned: no such process at all.
        #expect(kill(reaper, 0) == -1 && errno == ESRCH, "reaper \(reaper) is still there")
        #expect(!FileManager.default.fileExists(atPath: directory), "folder \(directory) is still there")
        // `pg_ctl stop -w` returns once the server has removed its pid file, an instant before the process exits.
        let serverGone = await processExits(server, within: Self.bound)
        #expect(serverGone, "server \(server) still runs: \(Self.commandLine(of: server))")
        Self.removeLeftovers(server: server, reaper: reaper, directory: directory)
    }

    /// What `/proc` says process `pid` runs, for a failure message.
    private static func commandLine(of pid: pid_t) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return "gone" }
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\0", with: " ")
    }

    /// After a failure, what the reaper should have removed, so a failing run leaves no server and no folder behind.
    /// The server is killed only while its working folder is this cluster's data, so a reused pid is never hit.
    private static func removeLeftovers(server: pid_t, reaper: pid_t, directory: String) {
        let serverFolder = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server)/cwd")
        if serverFolder == "\(directory)/data" {
            kill(-server, SIGKILL)
            kill(server, SIGKILL)
        }
        if commandLine(of: reaper).contains("mainline-pg-reaper") { kill(reaper, SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
#endif
