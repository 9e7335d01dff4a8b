import Foundation
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `order-desk`, run as a user runs it: the built Hummingbird service on a free loopback port, real HTTP requests
/// over TCP.
@Suite("Example: order-desk over HTTP", .serialized, .timeLimit(.minutes(2)))
struct OrderDeskExampleTests {
    /// A running `order-desk`.
    final class Server: Sendable {
        let server: ServerProcess
        var port: Int { server.port }

        init(arguments: [String] = []) throws {
            server = try ServerProcess("order-desk", arguments: arguments)
        }

        /// Sends one HTTP/1.1 request on a connection of its own and returns the status code and the body.
        func request(_ method: String, _ path: String, body: String = "") async throws -> (status: Int, body: String) {
            let port = self.port
            return try await offPool {
                let client = try LineClient(port: port)
                try client.send(
                    bytes: Array(
                        "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
                            .utf8
                    )
                )
                guard let statusLine = client.readLine(),
                    let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
                else { throw LineClient.Failure(description: "no status line") }
                while let header = client.readLine(), header != "\r", !header.isEmpty {}
                var lines: [String] = []
                while let line = client.readLine() { lines.append(line) }
                return (status, lines.joined(separator: "\n"))
            }
        }

        /// Stops the server with SIGTERM and returns how it ended.
        func terminate() async -> ChildProcess.Result {
            await server.terminate()
        }
    }

    /// 4 clients × 100 orders through a mailbox of 4 places: every order is taken — a full mailbox makes a request
    /// wait, never drops its order — and the tally, read on the loop through `run`, counts them per item.
    @Test func ordersFromManyClientsThroughASmallMailboxAreAllTaken() async throws {
        let server = try Server(arguments: ["--capacity", "4"])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<4 {
                group.addTask {
                    for _ in 0..<100 {
                        let reply = try await server.request("POST", "/orders", body: "item-\(client)")
                        #expect(reply.status == 202)
                    }
                }
            }
            try await group.waitForAll()
        }
        // Every request returned once its order was in the mailbox; the desk takes them on the loop, so ask until it
        // has (each answer is a round trip through the loop, never a sleep).
        var tally = ""
        for _ in 0..<1_000 {
            tally = try await server.request("GET", "/orders/tally").body
            if tally.hasPrefix("taken 400") { break }
        }
        #expect(tally == "taken 400\nwaiting 0\nitem-0 100\nitem-1 100\nitem-2 100\nitem-3 100")
        let result = await server.terminate()
        #expect(result.status == 0)
    }

    /// A closed desk takes nothing: 6 orders into a mailbox of 4 places leave 2 requests waiting in `send` (their
    /// clients get no answer yet, and nothing is dropped); once the desk opens, every order is taken.
    @Test func whileTheDeskIsClosedTheRequestsPastTheMailboxsCapacityWait() async throws {
        let server = try Server(arguments: ["--capacity", "4"])
        #expect(try await server.request("POST", "/desk/close").body == "closed")
        let replies = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for order in 0..<6 {
                    group.addTask { try await server.request("POST", "/orders", body: "item-\(order)").status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // Each tally is a round trip through the loop; ask until the two senders past the capacity are waiting.
        var tally = ""
        for _ in 0..<1_000 {
            tally = try await server.request("GET", "/orders/tally").body
            if tally.hasPrefix("taken 0\nwaiting 2") { break }
        }
        #expect(tally == "taken 0\nwaiting 2")
        #expect(try await server.request("POST", "/desk/open").body == "open")
        #expect(try await replies.value == Array(repeating: 202, count: 6))
        for _ in 0..<1_000 {
            tally = try await server.request("GET", "/orders/tally").body
            if tally.hasPrefix("taken 6") { break }
        }
        #expect(tally.hasPrefix("taken 6\nwaiting 0\n"))
        _ = await server.terminate()
    }

    @Test func anOrderThatIsNotAnItemNameIsABadRequest() async throws {
        let server = try Server()
        #expect(try await server.request("POST", "/orders", body: "").status == 400)
        #expect(try await server.request("POST", "/orders", body: "two words").status == 400)
        #expect(try await server.request("GET", "/orders/tally").body == "taken 0\nwaiting 0")
        _ = await server.terminate()
    }

    @Test(arguments: [
        (["--port", "70000"], "--port needs a number from 0 to 65535, got '70000'"),
        (["--capacity", "0"], "--capacity needs a number from 1 to 100000, got '0'"),
        (["--capacity", "many"], "'--capacity <n>'"),
    ])
    func aBadFlagExitsWithStatus64NamingIt(arguments: [String], message: String) async throws {
        try await CommandLineChecks.expectUsageError("order-desk", arguments, saying: message)
    }

    @Test func helpNamesEveryFlagAndSaysWhatItServes() async throws {
        try await CommandLineChecks.expectHelp(
            "order-desk",
            naming: ["--port", "--capacity"],
            mentioning: ["HTTP order desk", "POST /orders", "GET /orders/tally"]
        )
    }

    @Test func sigtermStopsItCleanly() async throws {
        let server = try Server()
        #expect(try await server.request("POST", "/orders", body: "apples").status == 202)
        let result = await server.terminate()
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("order-desk stopped; taken"))
    }
}
