import Foundation
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `pubsub-server`, run as a user runs it: the built program on a free loopback port, real TCP clients.
@Suite("Example: pubsub-server over TCP", .serialized, .timeLimit(.minutes(2)))
struct PubSubServerTests {
    /// A running `pubsub-server`.
    final class Server: Sendable {
        let server: ServerProcess
        var process: ChildProcess { server.process }
        var port: Int { server.port }

        init(arguments: [String] = []) throws {
            server = try ServerProcess("pubsub-server", arguments: arguments)
        }

        /// A new client, connected (the server may not have registered it yet: a command's reply says it has).
        func client(receiveBufferSize: Int32? = nil) throws -> LineClient {
            try LineClient(port: port, receiveBufferSize: receiveBufferSize)
        }

        /// A new client whose kernel receive buffer shrinks to `size` after it connected, as the slow reader of issue
        /// 25 does: the connection's window was offered with the default buffer, so the kernel holds more for it
        /// than `size`.
        func client(receiveBufferSizeAfterConnect size: Int32) throws -> LineClient {
            let client = try LineClient(port: port)
            var size = size
            guard setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw LineClient.Failure(description: "setsockopt(SO_RCVBUF): \(String(cString: strerror(errno)))")
            }
            return client
        }

        /// The server's resident memory, in bytes (`VmRSS` in `/proc/PID/status`).
        var residentMemory: Int {
            let status = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1_024
        }

        /// Stops the server with SIGTERM and returns how it ended.
        func terminate() async -> ChildProcess.Result {
            await server.terminate()
        }
    }

    @Test func aSubscriberReceivesWhatAPublisherSendsInOrder() async throws {
        let server = try Server()
        let subscriber = try server.client()
        let publisher = try server.client()
        try subscriber.send("SUB news")
        #expect(subscriber.readLine() == "OK SUB news")

        let count = 2_000
        async let received = offPool { (0..<count).map { _ in subscriber.readLine() ?? "<closed>" } }
        try await offPool {
            for index in 0..<count { try publisher.send("PUB news item \(index) of \(count)") }
        }
        #expect(try await received == (0..<count).map { "MSG news item \($0) of \(count)" })

        // Two equal messages in a row are two messages, and a topic nobody subscribes to reaches nobody.
        try publisher.send("PUB sport goal")
        try publisher.send("PUB news same")
        try publisher.send("PUB news same")
        #expect(subscriber.readLine() == "MSG news same")
        #expect(subscriber.readLine() == "MSG news same")

        try subscriber.send("UNSUB news")
        #expect(subscriber.readLine() == "OK UNSUB news")
        try publisher.send("PUB news unheard")
        try subscriber.send("QUIT")
        #expect(subscriber.readLine() == "BYE")
        #expect(subscriber.readLine() == nil)
        #expect(subscriber.isClosedByServer, "QUIT closes the connection")
        #expect(await server.terminate().status == 0)
    }

    /// How many times the slow-reader scenario runs, each on a fresh server with every core kept busy:
    /// `PUBSUB_SLOW_READER_RUNS` (3 unless set; 20 to show a fix of a race is stable).
    static let slowReaderRuns = Int(ProcessInfo.processInfo.environment["PUBSUB_SLOW_READER_RUNS"] ?? "") ?? 3

    /// At most this many stale messages reach a client that stopped reading before the latest of every topic: the
    /// server's mark (`ClientConnection.highWater`, 64 KiB, about 65 messages of 1 KB) plus what the kernel's socket
    /// buffers took before the mark was reached (65 to 140 in all, measured against a release build). A server that
    /// let one loop iteration's lines past the mark gave up to 1,102 (issue 25).
    static let staleMessageBound = 200

    /// The recipe of issue 25: a client with a 4 KiB receive buffer (set after connect) subscribes to 10 topics and
    /// stops reading; a publisher sends 100,000 messages of about 1 KB round-robin over them; once every one has been
    /// published the client reads. It is asserted by counting, never by timing: every read waits only for progress
    /// (a read gives up after 30 s without a byte).
    ///
    /// Runs under CPU load on purpose: the wake-up of a client that resumes reading was lost only on a busy machine
    /// (issue 13), where the loop takes posts in large batches and the server's threads are preempted at bad moments;
    /// large batches are also what carried a whole iteration's lines past the mark (issue 25).
    @Test(arguments: 1...slowReaderRuns)
    func aClientThatStopsReadingCostsBoundedMemoryAndGetsFewStaleMessagesBeforeTheLatestOfEachTopic(
        run: Int
    ) async throws {
        let load = CPULoad()
        defer { load.stop() }
        let server = try Server()
        let slow = try server.client(receiveBufferSizeAfterConnect: 4_096)
        let publisher = try server.client()
        let topics = (0..<10).map { "topic\($0)" }
        for topic in topics {
            try slow.send("SUB \(topic)")
            #expect(slow.readLine() == "OK SUB \(topic)")
        }
        let before = server.residentMemory

        // 100,000 messages of about 1 KB on 10 topics: 100 MB if the server kept a backlog for the slow client.
        let messages = 100_000
        let padding = String(repeating: "x", count: 960)
        try await offPool {
            for index in 0..<messages {
                try publisher.send("PUB \(topics[index % 10]) #\(index) \(padding)")
            }
            // Commands run in order: once STATS answers, every PUB has been published.
            try publisher.send("STATS")
        }
        let publisherStats = try await offPool { publisher.readLine(where: { $0.hasPrefix("STATS") }) }
        #expect(publisherStats?.contains("published=\(messages)") == true, "\(publisherStats ?? "no STATS")")
        let grown = server.residentMemory - before
        #expect(grown < 40 * 1_024 * 1_024, "the server grew by \(grown / 1_024) KiB for a client that never reads")

        // Now the client reads: it gets the latest message of every topic after few stale ones, and STATS accounts
        // for every other one.
        let lastIndex = Dictionary(uniqueKeysWithValues: topics.enumerated().map { ($1, messages - 10 + $0) })
        let reading = try await offPool {
            var reading = SlowReading()
            while reading.latest.count < topics.count, let line = slow.readLine() {
                reading.lines += 1
                reading.bytes += line.utf8.count + 1
                reading.lastLine = String(line.prefix(40))
                let fields = line.split(separator: " ", maxSplits: 3)
                guard fields.count == 4, fields[0] == "MSG" else { continue }
                reading.messages += 1
                let topic = String(fields[1])
                if fields[2] == "#\(lastIndex[topic]!)" {
                    reading.latest.insert(topic)
                } else {
                    reading.stale += 1
                }
            }
            return reading
        }
        guard reading.latest == Set(topics) else {
            // Starved: say what each side was doing: the client's reads, and whether the whole loop is stuck (a
            // newcomer gets no answer) or only this client is.
            let newcomer = try server.client()
            try newcomer.send("STATS")
            let answer = try await offPool { newcomer.readLine() }
            Issue.record(
                """
                run \(run): the slow client got nothing for 30 s after \(reading); the latest of \
                \(topics.count - reading.latest.count) topics never came. The publisher's STATS after its last PUB: \
                \(publisherStats ?? "none"). A new client's STATS now: \(answer ?? "no answer")
                """
            )
            server.process.send(SIGKILL)
            _ = await server.process.finish()
            return
        }
        try slow.send("STATS")
        let stats = try await offPool { slow.readLine(where: { $0.hasPrefix("STATS") }) ?? "" }
        #expect(
            reading.stale <= Self.staleMessageBound,
            """
            run \(run): \(reading.stale) stale messages (\(reading.bytes) bytes) came before the latest of every \
            topic, more than \(Self.staleMessageBound): the server let lines past its 64 KiB mark. \(stats)
            """
        )
        let dropped = Int(stats.split(separator: " ").first { $0.hasPrefix("you.dropped=") }?.dropFirst(12) ?? "")
        #expect((dropped ?? 0) > 0, "\(stats)")
        #expect(
            reading.messages + (dropped ?? 0) == messages,
            "every message was delivered or counted as dropped: \(reading.messages) received, \(stats)"
        )
        #expect(stats.contains("you.pending=0"), "\(stats)")
        #expect(await server.terminate().status == 0)
    }

    /// What the slow client read, for the assertions and for a failure's message.
    struct SlowReading: Sendable, CustomStringConvertible {
        var lines = 0
        var bytes = 0
        var messages = 0
        var stale = 0
        var latest = Set<String>()
        var lastLine = ""

        var description: String {
            "reading \(lines) lines (\(bytes) bytes): \(messages) messages, \(stale) stale, the latest of "
                + "\(latest.count) topics; last line \(lastLine.debugDescription)"
        }
    }

    @Test func malformedInputGetsErrLinesAndOtherClientsAreUnaffected() async throws {
        let server = try Server()
        let bystander = try server.client()
        try bystander.send("SUB weather")
        #expect(bystander.readLine() == "OK SUB weather")

        let rude = try server.client()
        try rude.send("FOO bar")
        #expect(rude.readLine() == "ERR unknown command 'FOO'")
        try rude.send("SUB")
        #expect(rude.readLine() == "ERR usage: SUB <topic>")
        try rude.send("PUB weather")
        #expect(rude.readLine() == "ERR usage: PUB <topic> <message>")
        try rude.send("SUB \(String(repeating: "t", count: 65))")
        #expect(rude.readLine()?.hasPrefix("ERR invalid topic") == true)
        try rude.send(bytes: Array("PUB weather caf".utf8) + [0xC3, 0x28] + Array("\n".utf8))
        #expect(rude.readLine() == "ERR invalid UTF-8")
        try rude.send("UNSUB weather")
        #expect(rude.readLine() == "ERR not subscribed to weather")
        try rude.send("")  // a blank line is ignored
        try rude.send("STATS now")
        #expect(rude.readLine() == "ERR usage: STATS")
        // Still a client in good standing: its next command works.
        try rude.send("PUB weather sunny")
        #expect(bystander.readLine() == "MSG weather sunny")

        // A line over the limit: ERR, and the server closes that connection only.
        try rude.send(String(repeating: "a", count: 2_000))
        #expect(rude.readLine() == "ERR line too long (limit 1024 bytes)")
        #expect(rude.readLine() == nil)
        #expect(rude.isClosedByServer)

        let publisher = try server.client()
        try publisher.send("PUB weather rain")
        #expect(bystander.readLine() == "MSG weather rain")
        try bystander.send("STATS")
        let stats = bystander.readLine() ?? ""
        #expect(stats.hasPrefix("STATS clients=2 topics=1 published=2 "), "\(stats)")
        #expect(await server.terminate().status == 0)
    }

    @Test func sigtermExitsZeroWithinFiveSecondsWithEveryConnectionClosed() async throws {
        let server = try Server()
        let subscriber = try server.client()
        try subscriber.send("SUB news")
        #expect(subscriber.readLine() == "OK SUB news")
        let idle = try server.client()
        let slow = try server.client(receiveBufferSize: 4_096)
        try slow.send("SUB news")
        let publisher = try server.client()
        try await offPool {
            for index in 0..<5_000 { try publisher.send("PUB news \(index) \(String(repeating: "y", count: 500))") }
            try publisher.send("STATS")
        }
        _ = try await offPool { publisher.readLine(where: { $0.hasPrefix("STATS") }) }

        let start = ContinuousClock.now
        let result = await server.terminate()
        let took = ContinuousClock.now - start
        #expect(result.status == 0, "\(result.standardError)")
        #expect(took < .seconds(5))
        #expect(result.standardOutput.contains("pubsub-server: stopped"))
        // Every connection was closed by the server: each client reads to the end of its stream.
        for client in [subscriber, idle, slow, publisher] {
            let closed = try await offPool { () -> Bool in
                while client.readLine() != nil {}
                return client.isClosedByServer
            }
            #expect(closed)
        }
    }

    @Test(arguments: [
        (["--port", "70000"], "--port needs a number from 0 to 65535, got '70000'"),
        (["--port", "seven"], "'--port <n>'"),
        (["--flush-deadline-ms"], "'--flush-deadline-ms <ms>'"),
        (["--flush-deadline-ms", "600001"], "--flush-deadline-ms needs a number from 0 to 600000, got '600001'"),
        (["--idle-timeout-s", "0"], "--idle-timeout-s needs a number from 1 to 86400, got '0'"),
        (["--idle-timeout-s", "ten"], "'--idle-timeout-s <s>'"),
        (["--idle-timeout-s"], "'--idle-timeout-s <s>'"),
        (["--max-clients", "0"], "--max-clients needs a number from 1 to 1000000, got '0'"),
        (["--max-clients", "-5"], "'--max-clients <n>'"),
        (["--max-clients"], "'--max-clients <n>'"),
        (["--slow-consumer-ms", "9"], "--slow-consumer-ms needs a number from 10 to 3600000, got '9'"),
        (["--slow-consumer-ms", "soon"], "'--slow-consumer-ms <ms>'"),
        (["--prot", "7420"], "'--prot'"),
    ])
    func aBadFlagExitsWithStatus64NamingIt(arguments: [String], message: String) async throws {
        try await CommandLineChecks.expectUsageError("pubsub-server", arguments, saying: message)
    }

    @Test func helpNamesEveryFlagSaysWhatItServesAndHowToStopAndExitsZero() async throws {
        try await CommandLineChecks.expectHelp(
            "pubsub-server",
            naming: [
                "--port", "--flush-deadline-ms", "--idle-timeout-s", "--max-clients", "--max-line-bytes", "--postgres",
                "--slow-consumer-ms", "--inspect",
            ],
            mentioning: [
                "publish/subscribe server", "SUB <topic>", "Press Ctrl-C (or send SIGTERM) to stop it",
                "servers sharing one database behave as one server", "swift run mainline-console PATH",
            ]
        )
    }

    @Test func aPortInUseIsAnErrorNamingTheCause() async throws {
        let server = try Server()
        let second = try await ChildProcess.run(
            ChildProcess.builtProduct("pubsub-server"),
            ["--port", "\(server.port)"]
        )
        #expect(second.status == 1)
        #expect(second.standardError.contains("Address already in use"))
        #expect(await server.terminate().status == 0)
    }
}
