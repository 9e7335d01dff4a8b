import Foundation
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `pubsub-server`'s introspection: the main loop's snapshot over the line protocol (`DEBUG`) and on SIGUSR1.
extension PubSubServerTests {
    @Test func debugAnswersWithTheMainLoopsSnapshotOneLineEachThenAnEndMarker() async throws {
        let server = try Server(arguments: ["--idle-timeout-s", "300"])
        let client = try server.client()
        try client.send("SUB news")
        #expect(client.readLine() == "OK SUB news")
        try client.send("DEBUG")
        let lines = try await offPool { () -> [String] in
            var lines: [String] = []
            while let line = client.readLine(), line != "DEBUG END" { lines.append(line) }
            return lines
        }
        #expect(lines.allSatisfy { $0.hasPrefix("DEBUG ") }, "\(lines)")
        #expect(lines.first?.hasPrefix("DEBUG MainLoop: guest, iteration ") == true, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("DEBUG   posts: ") })
        // Every client's idle timer is a labelled main-loop timer, due within the idle timeout.
        #expect(lines.contains { $0.contains("pubsub: idle check") }, "\(lines)")
        try client.send("DEBUG now")
        #expect(client.readLine() == "ERR usage: DEBUG")
        #expect(await server.terminate().status == 0)
    }

    @Test func sigusr1PrintsTheMainLoopsSnapshotOnStandardOutput() async throws {
        let server = try Server()
        let client = try server.client()
        try client.send("STATS")
        #expect(client.readLine()?.hasPrefix("STATS ") == true)
        server.process.send(SIGUSR1)
        let report = try await offPool { () -> [String] in
            var lines: [String] = []
            while let line = server.process.nextOutputLine(), line != "pubsub-server: end of snapshot" {
                lines.append(line)
            }
            return lines
        }
        #expect(report.first == "pubsub-server: snapshot", "\(report)")
        #expect(report.dropFirst().first?.hasPrefix("MainLoop: guest, iteration ") == true, "\(report)")
        // The server goes on serving after printing.
        try client.send("STATS")
        #expect(client.readLine()?.hasPrefix("STATS clients=1 ") == true)
        #expect(await server.terminate().status == 0)
    }
}
