import Foundation
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `dashboard` and `pubsub-server` with `--inspect PATH`: a real process serving its loop inspector, read by the built
/// `mainline-console --once --json` as other tools read it.
@Suite("Examples serve their inspector", .timeLimit(.minutes(5)))
struct InspectorExampleTests {
    @Test func dashboardServesADocumentWithTheSpelledFieldsAndItsMailbox() async throws {
        let folder = Inspection.socketFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/dashboard.sock"
        let dashboard = try DashboardProcess(["--inspect", path, "--pace-ms", "20", "--seed", "3"])

        let snapshot = try await Inspection.snapshot(at: path)

        #expect(Inspection.problems(snapshot) == [])
        #expect(snapshot["pid"] as? Int == Int(dashboard.process.pid))
        #expect(snapshot["process"] as? String == "dashboard")
        let mailboxes = snapshot["mailboxes"] as? [[String: Any]] ?? []
        let updates = try #require(mailboxes.first { $0["name"] as? String == "dashboard-updates" }, "\(mailboxes)")
        #expect(updates["kind"] as? String == "keyed")
        #expect(updates["capacity"] is NSNull)
        if let loops = Inspection.loops(of: snapshot) {
            #expect(loops.contains { $0["name"] as? String == "main" }, "\(loops)")
        }

        let ended = await dashboard.quit()
        #expect(ended.status == 0, "\(ended.standardError)")
        #expect(access(path, F_OK) != 0, "the socket is removed at exit")
    }

    @Test func pubsubServerShowsEachClientsViewModelAndOutgoingMailbox() async throws {
        let folder = Inspection.socketFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/pubsub.sock"
        let server = try ServerProcess("pubsub-server", arguments: ["--inspect", path])
        let client = try LineClient(port: server.port)
        try client.send("SUB news")
        #expect(client.readLine() == "OK SUB news")

        let snapshot = try await Inspection.snapshot(at: path)

        #expect(Inspection.problems(snapshot) == [])
        #expect(snapshot["process"] as? String == "pubsub-server")
        let viewModels = snapshot["viewModels"] as? [[String: Any]] ?? []
        #expect(viewModels.map { $0["type"] as? String } == ["ClientViewModel"], "\(viewModels)")
        #expect(viewModels.first?["state"] as? String == "resumed")
        let mailboxes = snapshot["mailboxes"] as? [[String: Any]] ?? []
        #expect(mailboxes.contains { $0["name"] as? String == "pubsub-client" && $0["kind"] as? String == "keyed" })
        if let loops = Inspection.loops(of: snapshot) {
            #expect(loops.contains { $0["name"] as? String == "main" }, "\(loops)")
        }

        // A client that leaves is cleared, then gone with its connection.
        try client.send("QUIT")
        #expect(client.readLine() == "BYE")
        var standStill = StandStill<String>(limit: .seconds(60))
        while true {
            let now = try await Inspection.snapshot(at: path)
            let states = (now["viewModels"] as? [[String: Any]] ?? []).map { $0["state"] as? String ?? "?" }
            if states.allSatisfy({ $0 == "cleared" }) { break }
            if standStill.hasStoodStill("\(states)") {
                Issue.record("the view model of a client that quit stayed \(states)")
                break
            }
        }
        #expect(await server.terminate().status == 0)
        #expect(access(path, F_OK) != 0, "the socket is removed when the server stops")
    }

    @Test func aSocketPathThatCannotBeServedExits1NamingIt() async throws {
        let folder = Inspection.socketFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/notes.txt"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("mine".utf8)))

        let pubsub = try await ChildProcess.run(
            ChildProcess.builtProduct("pubsub-server"),
            ["--port", "0", "--inspect", path]
        )
        #expect(pubsub.status == 1)
        #expect(pubsub.standardError.contains("cannot serve the inspector on \(path): something that is not a socket"))
        let dashboard = try await ChildProcess.run(ChildProcess.builtProduct("dashboard"), ["--inspect", path])
        #expect(dashboard.status == 1)
        #expect(
            dashboard.standardError.contains("cannot serve the inspector on \(path): something that is not a socket")
        )
        #expect(FileManager.default.contents(atPath: path) == Data("mine".utf8), "left alone")
    }
}
